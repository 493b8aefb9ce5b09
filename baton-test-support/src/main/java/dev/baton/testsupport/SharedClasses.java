package dev.baton.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Class data sharing for the child JVMs of {@link ForkedJava}: the children of one class path map
 * the classes they load from one archive instead of each reading, parsing and verifying them again,
 * about half of a child's start-up CPU. Opt-in: only where the system property {@value #PROPERTY}
 * names a directory for the archives (Baton's build sets it to each module's {@code target}).
 *
 * <p>The JVM shares classes from jars only, so each directory of the class path (a module's
 * {@code classes} and {@code test-classes}) goes into a jar first, in its place in the order. The
 * first child of a class path records the classes it loads; once it has exited, one JVM dumps them
 * into the archive, in the background; the children started after that use it. Everything is keyed
 * by the JDK, the class path, the jars' sizes and times and the directories' contents, so a rebuilt
 * module never meets an archive of its old classes, and several test JVMs of a module share one
 * archive. Failure behaviour: any step that fails leaves the children as they were without it (an
 * unusable archive is ignored by the JVM), and its warnings go to the child's standard error, never
 * to the output a test reads.
 */
final class SharedClasses {
    /** The system property naming the directory of the archives. */
    static final String PROPERTY = "dev.baton.testsupport.cds";

    private static final Map<String, Layout> LAYOUTS = new ConcurrentHashMap<>();

    private SharedClasses() {}

    /** The files of one class path's archive, under {@code dir}. */
    private record Layout(Path dir, String classPath, boolean usable) {
        Path archive() {
            return dir.resolve("classes.jsa");
        }

        Path classList() {
            return dir.resolve("classes.lst");
        }

        Path claim() {
            return dir.resolve("claimed");
        }
    }

    /**
     * {@return the JVM options and class path a child on {@code classPath} starts with: {@code -cp}
     * and the class path first, then the sharing options, if any}
     *
     * @param onExit receives a task to run once the child has exited (the archive's dump), or nothing
     */
    static List<String> options(String classPath, Consumer<Runnable> onExit) {
        return options(System.getProperty(PROPERTY), classPath, onExit);
    }

    /** As {@link #options(String, Consumer)}, with the archives under {@code root} (none where null or blank). */
    static List<String> options(String root, String classPath, Consumer<Runnable> onExit) {
        if (root == null || root.isBlank()) {
            return List.of("-cp", classPath);
        }
        Layout layout =
                LAYOUTS.computeIfAbsent(root + File.pathSeparator + classPath, key -> layout(Path.of(root), classPath));
        if (!layout.usable()) {
            return List.of("-cp", classPath);
        }
        List<String> options =
                new ArrayList<>(List.of("-cp", layout.classPath(), "-Xlog:disable", "-Xlog:all=warning:stderr"));
        if (Files.exists(layout.archive())) {
            options.add("-XX:SharedArchiveFile=" + layout.archive());
        } else if (claim(layout)) {
            Path list = layout.dir()
                    .resolve("classes.lst." + ProcessHandle.current().pid() + ".tmp");
            options.add("-XX:DumpLoadedClassList=" + list);
            onExit.accept(() -> dump(layout, list));
        }
        return options;
    }

    private static boolean claim(Layout layout) {
        try {
            Files.createFile(layout.claim());
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /** The jars of {@code classPath}'s directories, made once per content under {@code root}. */
    private static Layout layout(Path root, String classPath) {
        try {
            String[] entries = classPath.split(File.pathSeparator);
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            update(digest, System.getProperty("java.home") + "|" + System.getProperty("java.vm.version"));
            for (String entry : entries) {
                update(digest, "|" + entry);
                Path path = Path.of(entry);
                if (Files.isDirectory(path)) {
                    update(digest, stamp(path));
                } else if (Files.isRegularFile(path)) {
                    // a jar installed again (a SNAPSHOT) invalidates an archive made with the old one
                    update(
                            digest,
                            ":" + Files.size(path) + ":"
                                    + Files.getLastModifiedTime(path).toMillis());
                }
            }
            Path dir = root.resolve(HexFormat.of().formatHex(digest.digest()).substring(0, 16));
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                forgetStale(root, dir);
            } else {
                Files.setLastModifiedTime(dir, FileTime.fromMillis(System.currentTimeMillis())); // in use
            }
            List<String> jars = new ArrayList<>();
            for (int i = 0; i < entries.length; i++) {
                Path path = Path.of(entries[i]);
                if (Files.isDirectory(path)) {
                    Path jar = dir.resolve(i + ".jar");
                    if (!Files.exists(jar)) {
                        writeJar(path, jar);
                    }
                    jars.add(jar.toString());
                } else if (Files.isRegularFile(path)) {
                    jars.add(entries[i]);
                }
            }
            return new Layout(dir, String.join(File.pathSeparator, jars), true);
        } catch (IOException | UncheckedIOException | NoSuchAlgorithmException e) {
            return new Layout(root, classPath, false);
        }
    }

    /**
     * Deletes the archives of class paths no test JVM used for a day (a module rebuilt since), so
     * that a developer's many builds do not pile them up under {@code root}.
     */
    private static void forgetStale(Path root, Path current) {
        long dayAgo = System.currentTimeMillis() - Duration.ofDays(1).toMillis();
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path dir : dirs.filter(d -> !d.equals(current)).toList()) {
                if (Files.getLastModifiedTime(dir).toMillis() < dayAgo) {
                    try (Stream<Path> files = Files.walk(dir)) {
                        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                            Files.deleteIfExists(file);
                        }
                    }
                }
            }
        } catch (IOException e) {
            // clean-up is best effort
        }
    }

    private static void update(MessageDigest digest, String text) {
        digest.update(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The names, sizes and times of a directory's files: what changes when it is rebuilt. */
    private static String stamp(Path dir) throws IOException {
        StringBuilder stamp = new StringBuilder();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                stamp.append(dir.relativize(file))
                        .append(':')
                        .append(Files.size(file))
                        .append(':')
                        .append(Files.getLastModifiedTime(file).toMillis())
                        .append('\n');
            }
        }
        return stamp.toString();
    }

    /** Writes {@code dir}'s files into {@code jar}, through a temporary file so that no JVM sees half of it. */
    private static void writeJar(Path dir, Path jar) throws IOException {
        Path tmp = Files.createTempFile(jar.getParent(), jar.getFileName().toString(), ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp);
                JarOutputStream jarOut = new JarOutputStream(out);
                Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                jarOut.putNextEntry(new JarEntry(dir.relativize(file).toString().replace(File.separatorChar, '/')));
                Files.copy(file, jarOut);
                jarOut.closeEntry();
            }
        }
        // A link, unlike a move, never replaces a jar another test JVM made meanwhile: an archive
        // records its jars' times, and a replaced one would make it unusable.
        try {
            Files.createLink(jar, tmp);
        } catch (FileAlreadyExistsException e) {
            // another test JVM's, with the same content
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Dumps the classes the first child loaded into the archive (a JVM of its own, run once per
     * class path), through a temporary file; the claim stays, so that a failed dump is not retried.
     */
    private static void dump(Layout layout, Path list) {
        try {
            if (!Files.exists(list)) {
                return;
            }
            // A child killed while it wrote its list may have left its last line cut short.
            String lines = Files.readString(list);
            Files.writeString(layout.classList(), lines.substring(0, lines.lastIndexOf('\n') + 1));
            Files.delete(list);
            Path tmp = layout.dir()
                    .resolve("classes.jsa." + ProcessHandle.current().pid() + ".tmp");
            // A shell renames the archive into place, so that it lands even where this JVM ends first.
            Process dump = new ProcessBuilder(
                            "sh",
                            "-c",
                            "\"$0\" -Xshare:dump -XX:+UseSerialGC -XX:SharedClassListFile=\"$1\""
                                    + " -XX:SharedArchiveFile=\"$2\" -XX:ErrorFile=\"$5\" -cp \"$3\""
                                    + " && mv -f \"$2\" \"$4\"",
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            layout.classList().toString(),
                            tmp.toString(),
                            layout.classPath(),
                            layout.archive().toString(),
                            // A dump that crashes (JDK 17 has crashed in it) writes its report here,
                            // not into the module's directory, where it would dirty the work tree.
                            layout.dir().resolve("hs_err_pid%p.log").toString())
                    .redirectErrorStream(true)
                    .redirectOutput(layout.dir().resolve("dump.log").toFile())
                    .start();
            dump.waitFor();
        } catch (IOException e) {
            // no archive: the children start without it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
