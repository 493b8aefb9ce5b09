package dev.baton.tck;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * A holder in another process: one run of {@link ForkedLockClient}'s holder modes on a worker taken
 * for it alone ({@link ForkedWorkers#take()}), which the test may kill (SIGKILL), stop (SIGSTOP) and
 * resume. A worker whose run ended while it runs goes back to the pool on {@link #close()}; one that
 * was killed, is still stopped, or whose run did not end is ended.
 */
final class ForkedJvm implements AutoCloseable {
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final ForkedWorkers.Worker worker;
    private final ForkedWorkers.Run run;
    private volatile boolean stopped;

    private ForkedJvm(Consumer<String> sink, String... args) {
        this.worker = ForkedWorkers.take();
        this.run = worker.run(
                line -> {
                    lines.add(line);
                    sink.accept(line);
                },
                args);
    }

    /**
     * Starts a holder run.
     *
     * @param args the mode and its arguments, as on {@link ForkedLockClient}'s input line
     */
    static ForkedJvm start(String... args) {
        return new ForkedJvm(line -> {}, args);
    }

    /** As {@link #start(String...)}, each line of the run also going to {@code sink} as it comes. */
    static ForkedJvm start(Consumer<String> sink, String... args) {
        return new ForkedJvm(sink, args);
    }

    /** Waits for a line starting with {@code prefix} and returns the rest of it. */
    String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        String line = Await.next(
                lines,
                text -> text.startsWith(prefix),
                timeout,
                () -> "child " + worker.process.pid() + " printed no '" + prefix + "' line within " + timeout
                        + " (alive=" + worker.process.isAlive() + "); its stderr:\n" + stderrTail());
        return line.substring(prefix.length()).trim();
    }

    /** SIGKILL: the child gets no chance to release anything. */
    void kill9() throws InterruptedException {
        worker.process.kill();
    }

    /** SIGSTOP: the child is frozen, its connections open, until {@link #resume()}. */
    void stop() throws InterruptedException {
        stopped = true;
        worker.process.stop();
    }

    /** SIGCONT. */
    void resume() throws InterruptedException {
        worker.process.resume();
        stopped = false;
    }

    /**
     * Tells the run to finish as its mode says (release, ask, resign); sent while the child is
     * stopped, it is read the moment the child runs again.
     */
    void finish() {
        run.tell("finish");
    }

    long pid() {
        return worker.process.pid();
    }

    boolean isAlive() {
        return worker.process.isAlive();
    }

    String stderrTail() {
        return worker.process.stderrTail();
    }

    /**
     * Gives the worker back once its run has ended (telling a run that still holds to finish, and
     * waiting {@link KitTime#SLACK} for it), or ends it.
     */
    @Override
    public void close() throws InterruptedException {
        boolean reusable = worker.process.isAlive() && !stopped;
        if (reusable && !run.awaitEnd(Duration.ZERO)) {
            finish();
            reusable = run.awaitEnd(KitTime.SLACK);
        }
        if (reusable) {
            ForkedWorkers.giveBack(worker);
        } else {
            worker.process.close();
        }
    }
}
