package dev.baton.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A per-user cache under {@code java.io.tmpdir} for server binaries that come inside Maven artifacts
 * (Redis, PostgreSQL, MariaDB). Each entry is written to a temporary sibling first and then renamed
 * into place, so concurrent JVMs (forked test JVMs, a bench beside a build) never run a half-written
 * tree; the loser of a race keeps the winner's copy.
 */
final class BinaryCache {
    private static final Logger log = LoggerFactory.getLogger(BinaryCache.class);

    /** Writes the entry's content into a fresh temporary path (a file or a directory to fill). */
    @FunctionalInterface
    interface Writer {
        void write(Path into) throws IOException, InterruptedException;
    }

    private BinaryCache() {}

    /** The cache directory for one kind of binary, private to the current user's name. */
    static Path root(String kind) {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        return Path.of(System.getProperty("java.io.tmpdir"), "baton-" + kind + "-" + user);
    }

    /**
     * Returns {@code root/key}, creating it with {@code writer} unless a complete copy is there.
     *
     * @param directory whether the entry is a directory ({@code writer} fills an empty one) or a file
     * @param complete whether a path holds a usable copy; checked before and after writing
     * @throws IllegalStateException if the copy cannot be written or is incomplete
     */
    static Path install(
            String what, Path root, String key, boolean directory, Predicate<Path> complete, Writer writer) {
        Path target = root.resolve(key);
        if (complete.test(target)) {
            log.debug("{} already in {}", what, target);
            return target;
        }
        try {
            Files.createDirectories(root);
            Posix.openUp(root);
            long started = System.nanoTime();
            Path tmp = directory
                    ? Files.createTempDirectory(root, ".extract-")
                    : Files.createTempFile(root, ".copy-", ".tmp");
            try {
                writer.write(tmp);
                if (!complete.test(tmp)) {
                    throw new IllegalStateException("writing " + what + " into " + tmp + " left no usable copy");
                }
                if (directory) {
                    Posix.openUpRecursively(tmp);
                }
                try {
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
                    log.info(
                            "wrote {} to {} in {} ms",
                            what,
                            target,
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                } catch (IOException e) {
                    if (!complete.test(target)) {
                        throw e;
                    }
                    log.debug("another process wrote {} first", target);
                }
            } finally {
                Posix.deleteRecursively(tmp);
            }
            return target;
        } catch (IOException e) {
            throw new IllegalStateException("could not write " + what + " into " + root + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing " + what, e);
        }
    }

    /** The SHA-256 of a resource's content, in hex. */
    static String sha256(URL resource) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        try (InputStream in = new DigestInputStream(resource.openStream(), digest)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /** A resource from the context class loader, else from this library's. */
    static URL findResource(String name) {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        URL url = context == null ? null : context.getResource(name);
        if (url == null) {
            url = BinaryCache.class.getClassLoader().getResource(name);
        }
        return url;
    }
}
