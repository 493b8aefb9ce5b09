package dev.baton.check;

import dev.baton.check.HistoryEvent.Kind;
import dev.baton.servers.ProcessSignals;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One forked client JVM ({@link CheckClient}) seen from the orchestrator: its history lines go to the
 * run's {@link History} as they come, and it can be killed, stopped and continued.
 */
final class ClientProcess implements AutoCloseable {
    private final int id;
    private final Process process;
    private final Path stderr;
    private final History history;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final Thread reader;

    private ClientProcess(int id, Process process, Path stderr, History history) {
        this.id = id;
        this.process = process;
        this.stderr = stderr;
        this.history = history;
        this.reader = new Thread(this::read, "check-client-" + id);
        reader.setDaemon(true);
        reader.start();
    }

    /** Forks a client JVM on this JVM's class path. */
    static ClientProcess start(int id, List<String> arguments, History history) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-Xmx96m",
                "-Xss512k",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                CheckClient.class.getName(),
                "client=" + id));
        command.addAll(arguments);
        try {
            Path stderr = Files.createTempFile("baton-check-client-" + id + "-", ".log");
            Process process = new ProcessBuilder(command)
                    .redirectError(stderr.toFile())
                    .redirectInput(ProcessBuilder.Redirect.PIPE)
                    .start();
            return new ClientProcess(id, process, stderr, history);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot fork a check client JVM", e);
        }
    }

    private void read() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                HistoryEvent.parse(line).ifPresent(event -> {
                    if (event.kind() == Kind.READY) {
                        ready.countDown();
                    }
                    history.add(event);
                });
            }
        } catch (IOException e) {
            // the client is gone
        }
    }

    int id() {
        return id;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits until the client connected and started its loop. */
    void awaitReady(Duration timeout) throws InterruptedException {
        if (!ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("check client " + id + " did not start within " + timeout + " (alive="
                    + process.isAlive() + "); its stderr:\n" + stderrTail());
        }
    }

    /** SIGKILL: no release, no clean-up; the history records when. */
    void kill() throws InterruptedException {
        if (process.isAlive()) {
            ProcessSignals.resume(process.pid()); // a stopped process dies only once continued
        }
        process.destroyForcibly();
        long at = System.nanoTime();
        process.waitFor(10, TimeUnit.SECONDS);
        history.add(HistoryEvent.of(Kind.KILLED, id, at));
    }

    /** SIGSTOP: the client keeps its connections but runs no code until {@link #resume()}. */
    void stop() {
        history.add(HistoryEvent.of(Kind.ISOLATED, id, System.nanoTime()));
        ProcessSignals.stop(process.pid());
    }

    void resume() {
        ProcessSignals.resume(process.pid());
        history.add(HistoryEvent.of(Kind.RECONNECTED, id, System.nanoTime()));
    }

    /** Asks the client to finish its current hold and exit (end of input), then waits. */
    void finish(Duration timeout) throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // already gone
        }
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        reader.join(TimeUnit.SECONDS.toMillis(5));
    }

    String stderrTail() {
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - 20), all.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
            Files.deleteIfExists(stderr);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // best effort
        }
    }
}
