package dev.baton.tck;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A child JVM running {@link ForkedLockClient} with this JVM's class path. */
final class ForkedJvm implements AutoCloseable {
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path stderr;

    private ForkedJvm(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = in.readLine()) != null) {
                            lines.add(line);
                        }
                    } catch (IOException e) {
                        // the child is gone
                    }
                },
                "tck-fork-reader-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    static ForkedJvm start(String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                "-XX:TieredStopAtLevel=1",
                "-Xss512k",
                "-XX:+UseSerialGC",
                ForkedLockClient.class.getName()));
        command.addAll(List.of(args));
        try {
            Path stderr = Files.createTempFile("baton-tck-fork", ".log");
            Process process = new ProcessBuilder(command)
                    .redirectError(stderr.toFile())
                    .redirectInput(ProcessBuilder.Redirect.PIPE)
                    .start();
            return new ForkedJvm(process, stderr);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot fork a JVM", e);
        }
    }

    /** Waits for a line starting with {@code prefix} and returns the rest of it. */
    String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long remaining = deadline - System.nanoTime();
            String line = lines.poll(Math.max(0, remaining), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("child " + process.pid() + " printed no '" + prefix + "' line within "
                        + timeout + " (alive=" + process.isAlive() + "); its stderr:\n" + stderrTail());
            }
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
        }
    }

    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(
                    "child " + process.pid() + " did not exit within " + timeout + "; stderr:\n" + stderrTail());
        }
        return process.exitValue();
    }

    /** SIGKILL: the child gets no chance to release anything. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    String stderrTail() {
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
