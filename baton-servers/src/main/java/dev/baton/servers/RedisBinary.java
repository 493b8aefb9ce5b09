package dev.baton.servers;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code redis-server} executable shipped inside {@code com.github.codemonstur:embedded-redis}
 * (only the binary is used, not that library's launcher), copied once into a cache directory under
 * {@code java.io.tmpdir} keyed by its SHA-256 (see {@link BinaryCache}).
 */
final class RedisBinary {
    private static final Logger log = LoggerFactory.getLogger(RedisBinary.class);

    private static final ReentrantLock LOCK = new ReentrantLock();
    private static volatile Path installed;

    private RedisBinary() {}

    /** The executable, copying it out of the jar first if needed. */
    static Path executable() {
        Path path = installed;
        if (path != null) {
            return path;
        }
        LOCK.lock();
        try {
            if (installed == null) {
                installed = install();
            }
            return installed;
        } finally {
            LOCK.unlock();
        }
    }

    /** The resource name for this platform, following embedded-redis' naming. */
    static String resourceName() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (os.contains("linux")) {
            return switch (arch) {
                case "amd64", "x86_64" -> "redis-server-6.2.6-v5-linux-amd64";
                case "aarch64", "arm64" -> "redis-server-6.2.7-linux-arm64";
                default -> "redis-server-6.2.7-linux-386";
            };
        }
        if (os.contains("mac") || os.contains("darwin")) {
            return arch.contains("aarch64") || arch.contains("arm")
                    ? "redis-server-6.2.6-v5-darwin-arm64"
                    : "redis-server-6.2.6-v5-darwin-amd64";
        }
        throw new IllegalStateException("embedded Redis is supported on Linux and macOS only, not on "
                + System.getProperty("os.name") + "; set BATON_REDIS_URI to use an external server");
    }

    private static Path install() {
        String name = resourceName();
        URL resource = RedisBinary.class.getClassLoader().getResource(name);
        if (resource == null) {
            throw new IllegalStateException("no Redis binary '" + name + "' on the classpath; add"
                    + " com.github.codemonstur:embedded-redis or set BATON_REDIS_URI to use an external server");
        }
        String hash;
        try {
            hash = BinaryCache.sha256(resource).substring(0, 16);
        } catch (IOException e) {
            throw new IllegalStateException("could not read the Redis binary " + resource + ": " + e, e);
        }
        return BinaryCache.install(
                "the Redis binary " + name,
                BinaryCache.root("redis"),
                name + "-" + hash,
                false,
                Files::isExecutable,
                into -> {
                    try (InputStream in = resource.openStream()) {
                        Files.copy(in, into, StandardCopyOption.REPLACE_EXISTING);
                    }
                    if (!into.toFile().setExecutable(true, false)) {
                        throw new IOException("cannot make " + into + " executable");
                    }
                });
    }
}
