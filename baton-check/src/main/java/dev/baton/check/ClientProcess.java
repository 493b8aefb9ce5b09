package dev.baton.check;

import dev.baton.check.HistoryEvent.Kind;
import dev.baton.servers.ProcessSignals;
import dev.baton.testsupport.ForkedJava;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One forked client JVM ({@link CheckClient}) seen from the orchestrator: its history lines go to the
 * run's {@link History} as they come, and it can be killed, stopped and continued; the history
 * records each of these when it happens.
 */
final class ClientProcess implements AutoCloseable {
    private final int id;
    private final History history;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final ForkedJava process;

    private ClientProcess(int id, List<String> arguments, History history) {
        this.id = id;
        this.history = history;
        List<String> args = new ArrayList<>();
        args.add("client=" + id);
        args.addAll(arguments);
        this.process = ForkedJava.start(
                CheckClient.class.getName(),
                List.of("-Xmx96m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"),
                args,
                this::read);
    }

    /** Forks a client JVM on this JVM's class path. */
    static ClientProcess start(int id, List<String> arguments, History history) {
        return new ClientProcess(id, arguments, history);
    }

    private void read(String line) {
        HistoryEvent.parse(line).ifPresent(event -> {
            if (event.kind() == Kind.READY) {
                ready.countDown();
            }
            history.add(event);
        });
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
                    + process.isAlive() + "); its stderr:\n" + process.stderrTail());
        }
    }

    /** SIGKILL: no release, no clean-up. The history records the kill once the process is gone. */
    void kill() throws InterruptedException {
        process.kill();
        history.add(HistoryEvent.of(Kind.KILLED, id, System.nanoTime()));
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

    /** Asks the client to finish its current hold and exit (end of input); {@link #awaitFinish} waits. */
    void finish() {
        process.closeInput();
    }

    /** Waits until the client asked to {@link #finish()} has exited, until {@code deadline}; kills it after. */
    void awaitFinish(long deadline) throws InterruptedException {
        Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        if (process.awaitExit(left).isEmpty()) {
            process.kill();
        }
    }

    @Override
    public void close() {
        process.close();
    }
}
