package dev.baton.servers;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Small POSIX helpers: who we are, dropping privileges, signals, files and logs. */
final class Posix {

    private static final Logger log = LoggerFactory.getLogger(Posix.class);

    /** uid and gid of {@code nobody}/{@code nogroup} on Debian, Ubuntu, RHEL and Alpine. */
    static final int NOBODY = 65534;

    private static final boolean ROOT = detectRoot();

    private Posix() {}

    /** Whether the effective uid of this JVM is 0. */
    static boolean isRoot() {
        return ROOT;
    }

    private static boolean detectRoot() {
        Path status = Path.of("/proc/self/status");
        if (Files.isReadable(status)) {
            try {
                for (String line : Files.readAllLines(status, StandardCharsets.UTF_8)) {
                    if (line.startsWith("Uid:")) {
                        String[] ids = line.substring(4).trim().split("\\s+");
                        return ids.length > 1 && "0".equals(ids[1]);
                    }
                }
            } catch (IOException e) {
                log.debug("could not read {}", status, e);
            }
        }
        return "root".equals(System.getProperty("user.name"));
    }

    /**
     * The command prefix that runs a program as uid/gid 65534 with no supplementary groups. It uses
     * {@code setpriv}, which execs the program in place, so the pid of the started process is the
     * pid of the program.
     */
    static List<String> runAsNobodyPrefix() {
        for (String dir : List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin")) {
            Path setpriv = Path.of(dir, "setpriv");
            if (Files.isExecutable(setpriv)) {
                return List.of(setpriv.toString(), "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups");
            }
        }
        throw new IllegalStateException("running as root, but PostgreSQL refuses to run as root and setpriv"
                + " (util-linux) was not found to run it as uid " + NOBODY + "; install util-linux or run as"
                + " an unprivileged user");
    }

    /** Changes the owner and group of {@code path} to 65534. */
    static void chownToNobody(Path path) throws IOException {
        Files.setAttribute(path, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(path, "unix:gid", NOBODY, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Throws a clear {@link IllegalStateException} unless every directory from the root down to
     * {@code dir} can be traversed by other users, as uid 65534 needs to.
     */
    static void requireReachableByOthers(Path dir) throws IOException {
        for (Path path = dir.toAbsolutePath(); path != null; path = path.getParent()) {
            if (!Files.getPosixFilePermissions(path).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                throw new IllegalStateException("PostgreSQL runs as uid " + NOBODY + " because this JVM runs as"
                        + " root, but " + path + " is not searchable by other users, so it cannot reach " + dir
                        + "; point java.io.tmpdir at a directory such as /tmp");
            }
        }
    }

    /** Adds read permission for everybody, and execute where the owner has it, to {@code path}. */
    static void openUp(Path path) throws IOException {
        if (Files.isSymbolicLink(path)) {
            return;
        }
        Set<PosixFilePermission> perms = EnumSet.copyOf(Files.getPosixFilePermissions(path));
        perms.add(PosixFilePermission.OWNER_READ);
        perms.add(PosixFilePermission.GROUP_READ);
        perms.add(PosixFilePermission.OTHERS_READ);
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS) || perms.contains(PosixFilePermission.OWNER_EXECUTE)) {
            perms.add(PosixFilePermission.OWNER_EXECUTE);
            perms.add(PosixFilePermission.GROUP_EXECUTE);
            perms.add(PosixFilePermission.OTHERS_EXECUTE);
        }
        Files.setPosixFilePermissions(path, perms);
    }

    /** {@link #openUp(Path)} on {@code dir} and everything below it (symbolic links are skipped). */
    static void openUpRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                openUp(path);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * Sends {@code signal} (a name such as {@code INT}) to {@code pid} with {@code kill}. Returns
     * whether {@code kill} reported success; never throws.
     */
    static boolean signal(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                return false;
            }
            return kill.exitValue() == 0;
        } catch (IOException e) {
            log.warn("could not run kill -{} {}", signal, pid, e);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Sends SIGKILL to {@code process} and every process below it (SIGKILL ends a stopped process
     * too) and waits up to {@code wait} for all of them to exit. Returns whether they did.
     */
    static boolean killTree(ProcessHandle process, Duration wait) {
        List<ProcessHandle> all = new ArrayList<>(process.descendants().toList()); // before they lose their parent
        all.add(process);
        all.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + wait.toNanos();
        boolean gone = true;
        for (ProcessHandle handle : all) {
            gone &= awaitExit(handle, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        return gone;
    }

    /** Waits up to {@code wait} for {@code process} to exit; on interrupt kills it (keeping the status). */
    static boolean awaitExit(ProcessHandle process, Duration wait) {
        try {
            process.onExit().get(wait.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return !process.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            return false;
        }
    }

    /**
     * Runs {@code command} to completion with its output appended to {@code logFile} and returns its
     * exit code.
     *
     * @throws IllegalStateException when it does not finish within {@code timeoutSeconds}
     */
    static int run(List<String> command, Path logFile, long timeoutSeconds) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .start();
        try {
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                throw new IllegalStateException("'" + String.join(" ", command) + "' did not finish within "
                        + timeoutSeconds + " s" + tail(logFile, 0));
            }
            return process.exitValue();
        } finally {
            process.destroyForcibly();
        }
    }

    /**
     * The last lines of {@code logFile} from byte {@code from} on, formatted to be appended to an
     * exception message; empty when there is nothing to show.
     */
    static String tail(Path logFile, long from) {
        final int maxBytes = 4096;
        final int maxLines = 30;
        try (RandomAccessFile file = new RandomAccessFile(logFile.toFile(), "r")) {
            long start = Math.max(from, file.length() - maxBytes);
            byte[] bytes = new byte[(int) Math.max(0, file.length() - start)];
            file.seek(start);
            file.readFully(bytes);
            List<String> lines = new ArrayList<>(List.of(new String(bytes, StandardCharsets.UTF_8).split("\n")));
            if (start > from && lines.size() > 1) {
                lines.remove(0); // probably a partial line
            }
            lines.removeIf(String::isBlank);
            if (lines.isEmpty()) {
                return "";
            }
            List<String> last = lines.subList(Math.max(0, lines.size() - maxLines), lines.size());
            return "; last lines of " + logFile + ":\n  " + String.join("\n  ", last);
        } catch (IOException e) {
            return "; (could not read " + logFile + ": " + e + ")";
        }
    }

    /** A new temporary directory under {@code java.io.tmpdir}; see {@link #createTempDirectory(Path, String)}. */
    static Path createTempDirectory(String prefix) {
        return createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), prefix);
    }

    /**
     * A new directory under {@code parent} whose name starts with {@code prefix}.
     *
     * @throws IllegalStateException if it cannot be created
     */
    static Path createTempDirectory(Path parent, String prefix) {
        try {
            return Files.createTempDirectory(parent, prefix);
        } catch (IOException e) {
            throw new IllegalStateException("could not create a temporary directory in " + parent + ": " + e, e);
        }
    }

    /** Deletes {@code path} and everything below it; logs instead of throwing. */
    static void deleteRecursively(Path path) {
        if (path == null || !Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Files.walkFileTree(path, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    if (e != null && !(e instanceof NoSuchFileException)) {
                        throw e;
                    }
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            log.warn("could not delete {}", path, e);
        }
    }
}
