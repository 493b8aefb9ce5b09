package dev.baton.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A child JVM on this JVM's class path, for tests and checks that need a second process (a lock
 * holder to kill with SIGKILL or stop with SIGSTOP): every line it prints on standard output goes
 * to a consumer, as it comes, on a reader thread of its own; its standard error goes to a temporary
 * file whose tail {@link #stderrTail()} gives for failure messages.
 *
 * <p>The child runs with a small heap and the client compiler only, so that several start quickly on
 * two cores, and, where the build asks for it, with the classes of its class path shared between the
 * children ({@code SharedClasses}). {@link #close()} kills it (if alive) and deletes the file.
 */
public final class ForkedJava implements AutoCloseable {
    private final Process process;
    private final Path stderr;
    private final Thread reader;
    private final ReentrantLock inputLock = new ReentrantLock();

    private ForkedJava(Process process, Path stderr, Consumer<String> lines) {
        this.process = process;
        this.stderr = stderr;
        this.reader = new Thread(
                () -> {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = in.readLine()) != null) {
                            lines.accept(line);
                        }
                    } catch (IOException e) {
                        // the child is gone
                    }
                },
                "forked-java-reader-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code mainClass} with {@code args}, after the JVM options {@code jvmOptions}.
     *
     * @param mainClass the fully qualified class to run, found on this JVM's class path
     * @param jvmOptions options placed before the class name, such as {@code -Dkey=value}
     * @param args the program's arguments
     * @param lines receives each line of the child's standard output, on the reader thread
     * @return the running child; close it to kill it and delete its standard error file
     * @throws UncheckedIOException if the JVM cannot be started
     */
    public static ForkedJava start(
            String mainClass, List<String> jvmOptions, List<String> args, Consumer<String> lines) {
        return start(System.getProperty("java.class.path"), mainClass, jvmOptions, args, lines);
    }

    /**
     * Starts {@code mainClass} as {@link #start(String, List, List, Consumer)} does, on a class path of
     * the caller's making (this JVM's with some libraries at other versions, say).
     *
     * @param classPath the child's class path, entries separated by the platform's path separator
     * @param mainClass the fully qualified class to run, found on {@code classPath}
     * @param jvmOptions options placed before the class name, such as {@code -Dkey=value}
     * @param args the program's arguments
     * @param lines receives each line of the child's standard output, on the reader thread
     * @return the running child; close it to kill it and delete its standard error file
     * @throws UncheckedIOException if the JVM cannot be started
     */
    public static ForkedJava start(
            String classPath, String mainClass, List<String> jvmOptions, List<String> args, Consumer<String> lines) {
        List<Runnable> afterExit = new ArrayList<>();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(SharedClasses.options(classPath, afterExit::add));
        command.addAll(List.of("-XX:TieredStopAtLevel=1", "-Xss512k", "-XX:+UseSerialGC"));
        command.addAll(jvmOptions);
        command.add(mainClass);
        command.addAll(args);
        try {
            Path stderr = Files.createTempFile("baton-fork-", ".log");
            Process process = new ProcessBuilder(command)
                    .redirectError(stderr.toFile())
                    .redirectInput(ProcessBuilder.Redirect.PIPE)
                    .start();
            afterExit.forEach(task -> process.onExit().thenRunAsync(task, ForkedJava::daemon));
            return new ForkedJava(process, stderr, lines);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot fork a JVM for " + mainClass, e);
        }
    }

    private static void daemon(Runnable task) {
        Thread thread = new Thread(task, "forked-java-shared-classes");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * The child's process id.
     *
     * @return the pid
     */
    public long pid() {
        return process.pid();
    }

    /**
     * Whether the child is still running.
     *
     * @return {@code true} until it has exited or been killed
     */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * SIGKILL, which ends a child stopped with SIGSTOP too (no SIGCONT needed); waits up to 30 s for
     * it to be gone.
     *
     * @throws InterruptedException if the thread is interrupted while waiting; the signal was sent
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /**
     * SIGSTOP: freezes the child as a long GC pause or a frozen VM does (its connections stay open,
     * it sees no time pass); {@link #resume()} continues it, {@link #kill()} ends it either way.
     *
     * @throws IllegalStateException if {@code kill -STOP} failed (the child is gone, or procps' {@code
     *     kill} is missing)
     * @throws InterruptedException if the thread is interrupted while {@code kill} runs
     */
    public void stop() throws InterruptedException {
        signal("STOP");
    }

    /**
     * SIGCONT: continues a child frozen by {@link #stop()}.
     *
     * @throws IllegalStateException if {@code kill -CONT} failed
     * @throws InterruptedException if the thread is interrupted while {@code kill} runs
     */
    public void resume() throws InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws InterruptedException {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal + " " + process.pid(), e);
        }
    }

    /**
     * Writes {@code line} and a line feed to the child's standard input, for a child that reads its
     * work from there. Safe to call from several threads: lines are never interleaved.
     *
     * @param line the line, without a line feed
     * @throws UncheckedIOException if the child's standard input is closed (the child is gone)
     */
    public void send(String line) {
        inputLock.lock();
        try {
            OutputStream input = process.getOutputStream();
            input.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            input.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to child " + process.pid() + " (alive=" + isAlive() + ")", e);
        } finally {
            inputLock.unlock();
        }
    }

    /** Closes the child's standard input (its signal to finish, where it reads it). */
    public void closeInput() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // already gone
        }
    }

    /**
     * Waits up to {@code timeout} for the child to exit, and for its last lines to be read.
     *
     * @param timeout the longest time to wait
     * @return its exit code, or empty if it still runs
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public OptionalInt awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return OptionalInt.empty();
        }
        reader.join(TimeUnit.SECONDS.toMillis(5));
        return OptionalInt.of(process.exitValue());
    }

    /**
     * The last 40 lines the child wrote on standard error, for failure messages.
     *
     * @return the lines joined with {@code \n}; empty if it wrote nothing
     */
    public String stderrTail() {
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
            Files.deleteIfExists(stderr);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // temp file clean-up is best effort
        }
    }
}
