package dev.baton.check;

import dev.baton.check.HistoryEvent.Kind;
import dev.baton.servers.ProcessSignals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One client of a run ({@link CheckClient} in a JVM of its own, {@link ClientJvm}) seen from the
 * orchestrator: its history lines go to the run's {@link History} as they come, and it can be killed,
 * stopped and continued; the history records each of these when it happens.
 */
final class ClientProcess implements AutoCloseable {
    private final int id;
    private final History history;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final ClientJvm jvm;

    private ClientProcess(int id, List<String> arguments, History history) {
        this.id = id;
        this.history = history;
        List<String> args = new ArrayList<>();
        args.add("client=" + id);
        args.addAll(arguments);
        this.jvm = ClientJvm.take(args, this::read);
    }

    /** Starts a client for a run, in an idle client JVM of an earlier run or a new one. */
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
        return jvm.process().isAlive();
    }

    /** Waits until the client connected and started its loop. */
    void awaitReady(Duration timeout) throws InterruptedException {
        if (!ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("check client " + id + " did not start within " + timeout + " (alive="
                    + isAlive() + "); its stderr:\n" + jvm.process().stderrTail());
        }
    }

    /** SIGKILL: no release, no clean-up. The history records the kill once the process is gone. */
    void kill() throws InterruptedException {
        jvm.process().kill();
        history.add(HistoryEvent.of(Kind.KILLED, id, System.nanoTime()));
    }

    /** SIGSTOP: the client keeps its connections but runs no code until {@link #resume()}. */
    void stop() {
        history.add(HistoryEvent.of(Kind.ISOLATED, id, System.nanoTime()));
        ProcessSignals.stop(jvm.process().pid());
    }

    void resume() {
        ProcessSignals.resume(jvm.process().pid());
        history.add(HistoryEvent.of(Kind.RECONNECTED, id, System.nanoTime()));
    }

    /** Asks the client to finish its current hold and close the run's subject; {@link #awaitFinish} waits. */
    void finish() {
        jvm.finish();
    }

    /** Waits until the client asked to {@link #finish()} has finished, until {@code deadline}; kills it after. */
    void awaitFinish(long deadline) throws InterruptedException {
        jvm.awaitFinish(deadline);
    }

    /** Ends this client's part in the run: its JVM goes back to the idle pool if it finished cleanly. */
    @Override
    public void close() {
        try {
            jvm.release();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            jvm.process().close();
        }
    }
}
