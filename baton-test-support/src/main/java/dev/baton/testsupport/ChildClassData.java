package dev.baton.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

/**
 * Class data sharing for the child JVMs of this JVM ({@link ForkedJava}): the classes the first
 * child that exits normally loaded are written into an archive, which every later child maps
 * instead of loading and verifying them again.
 *
 * <p>Why: a child is a whole backend client (Netty, gRPC or a JDBC driver), and its start is most of
 * its cost. Measured on the 2-core build machine, a Redis child of the kit (warm-up, three lock pairs)
 * used 1.1-1.4 s of CPU without the archive and 0.75-0.85 s with it; the suite forks a few hundred.
 *
 * <p>How: HotSpot's dynamic archive ({@code -XX:ArchiveClassesAtExit}, JDK 13 on) refuses a class
 * path with a non-empty directory, and a test runs from {@code target/classes} and {@code
 * target/test-classes}: so the children run on a copy of the class path in which each directory is
 * a jar written once per parent JVM (into a temporary directory removed when this JVM exits). Every
 * child started while no archive exists writes one of its own at exit; the first complete one (its
 * child exited by itself, not killed) is used from then on. A child given an archive that does not
 * fit ({@code -Xshare:auto}) runs without it. The JVM's own log lines go to standard error, never
 * into the standard output the parent reads.
 *
 * <p>{@code -Dbaton.children.noSharing=true} turns it off. Anything that goes wrong here (no temporary directory, a jar that cannot be written, a class
 * path jar naming others in its manifest) leaves the children on the parent's class path without
 * an archive, as before.
 */
final class ChildClassData {
    private static final ChildClassData INSTANCE = create();

    /** The class path the children run on; the parent's own when sharing is off. */
    private final String classPath;
    /** Where the archive and the class path's jars live; null when sharing is off. */
    private final Path dir;

    private final AtomicReference<Path> archive = new AtomicReference<>();
    private final AtomicInteger dumps = new AtomicInteger();

    private ChildClassData(String classPath, Path dir) {
        this.classPath = classPath;
        this.dir = dir;
    }

    static ChildClassData get() {
        return INSTANCE;
    }

    private static ChildClassData create() {
        String parent = System.getProperty("java.class.path");
        if (Boolean.getBoolean("baton.children.noSharing")) {
            return new ChildClassData(parent, null);
        }
        Path dir = null;
        try {
            dir = Files.createTempDirectory("baton-children-");
            Path created = dir;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(created), "baton-children-cleanup"));
            List<String> entries = new ArrayList<>();
            int jars = 0;
            for (String entry : parent.split(File.pathSeparator)) {
                Path path = Path.of(entry);
                if (Files.isDirectory(path)) {
                    Path jar = dir.resolve("classes-" + jars++ + ".jar");
                    writeJar(path, jar);
                    entries.add(jar.toString());
                } else {
                    if (namesOtherEntries(path)) {
                        // A manifest-only jar (surefire's booter, a launcher jar) could name directories,
                        // which the archive refuses: no sharing.
                        return new ChildClassData(parent, null);
                    }
                    entries.add(entry);
                }
            }
            return new ChildClassData(String.join(File.pathSeparator, entries), dir);
        } catch (IOException | UncheckedIOException | SecurityException e) {
            if (dir != null) {
                deleteTree(dir);
            }
            return new ChildClassData(parent, null);
        }
    }

    String classPath() {
        return classPath;
    }

    /**
     * The options for a child about to start: the archive when there is one, else (while sharing is
     * on and fewer than a few children tried) a file of the child's own to write one into at exit.
     *
     * @return the options, and the file the child writes its archive into (null if none)
     */
    Launch launch() {
        List<String> options = new ArrayList<>(List.of("-Xlog:disable", "-Xlog:all=warning:stderr"));
        if (dir == null) {
            return new Launch(options, null);
        }
        Path ready = archive.get();
        if (ready != null) {
            options.add("-Xshare:auto");
            options.add("-XX:SharedArchiveFile=" + ready);
            return new Launch(options, null);
        }
        int n = dumps.incrementAndGet();
        if (n > 8) {
            return new Launch(options, null); // none of the first children exited by itself: stop trying
        }
        Path target = dir.resolve("children-" + n + ".jsa");
        options.add("-XX:ArchiveClassesAtExit=" + target);
        return new Launch(options, target);
    }

    /**
     * Called once the child given {@code target} to write its archive into has exited: a child that
     * exited by itself wrote it completely (a killed one may have left part of it), and the first
     * such archive becomes the children's.
     */
    void exited(Path target, int exitCode) {
        boolean complete = exitCode < 128 && isNonEmpty(target);
        if (!complete || !archive.compareAndSet(null, target)) {
            try {
                Files.deleteIfExists(target);
            } catch (IOException e) {
                // the directory goes when this JVM exits
            }
        }
    }

    /** What a child starts with: its options, and the archive it writes at exit (or null). */
    record Launch(List<String> options, Path dumpTarget) {}

    private static boolean isNonEmpty(Path file) {
        try {
            return Files.size(file) > 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean namesOtherEntries(Path path) {
        if (!Files.isRegularFile(path)) {
            return false;
        }
        try (JarFile jar = new JarFile(path.toFile())) {
            Manifest manifest = jar.getManifest();
            return manifest != null && manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH) != null;
        } catch (IOException e) {
            return false; // not a jar: the JVM ignores or refuses it either way
        }
    }

    private static void writeJar(Path from, Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest);
                Stream<Path> files = Files.walk(from)) {
            for (Path path : (Iterable<Path>) files.sorted()::iterator) {
                String name = from.relativize(path).toString().replace(File.separatorChar, '/');
                if (name.isEmpty() || name.equals("META-INF/MANIFEST.MF")) {
                    continue;
                }
                if (Files.isDirectory(path)) {
                    out.putNextEntry(new ZipEntry(name + "/"));
                } else {
                    out.putNextEntry(new ZipEntry(name));
                    Files.copy(path, out);
                }
                out.closeEntry();
            }
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            // best effort: a temporary directory
        }
    }
}
