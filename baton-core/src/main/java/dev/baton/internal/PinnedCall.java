package dev.baton.internal;

import dev.baton.spi.Grant;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;

/**
 * A blocking wait of an asynchronous acquisition ({@link dev.baton.spi.Waiting#blocking}), run on the
 * client's pinned pool. It reports its outcome exactly once. Why not a {@code Future}: a cancelled
 * {@code FutureTask} that has not started never runs, so it would never report back. A cancel of a
 * call still waiting for a pool thread reports at once (the call then never runs); a cancel of a
 * running call interrupts it, and the backend withdraws its request before it reports.
 */
final class PinnedCall implements Runnable {
    /** The blocking call. */
    interface Call {
        Optional<Grant> run() throws InterruptedException;
    }

    private enum State {
        QUEUED,
        RUNNING,
        DONE
    }

    private final Call call;
    private final BiConsumer<Optional<Grant>, Throwable> report;
    private final ReentrantLock lock = new ReentrantLock();
    private State state = State.QUEUED;
    private Thread runner;

    /** @param report told the outcome once: the grant (or empty), or the failure (an Error too) or interrupt */
    PinnedCall(Call call, BiConsumer<Optional<Grant>, Throwable> report) {
        this.call = call;
        this.report = report;
    }

    /**
     * Ends the call if it has not started (its acquisition timed out while it waited for a pool
     * thread); a call already running ends by its own timeout.
     */
    void cancelUnstarted() {
        cancel(false);
    }

    /** Ends the call: at once if it has not started, by an interrupt if it runs. */
    void cancel() {
        cancel(true);
    }

    private void cancel(boolean interruptRunning) {
        boolean unstarted = false;
        lock.lock();
        try {
            if (state == State.QUEUED) {
                state = State.DONE;
                unstarted = true;
            } else if (state == State.RUNNING && interruptRunning) {
                runner.interrupt();
            }
        } finally {
            lock.unlock();
        }
        if (unstarted) {
            report.accept(Optional.empty(), new InterruptedException());
        }
    }

    @Override
    public void run() {
        lock.lock();
        try {
            if (state != State.QUEUED) {
                return; // cancelled while queued: reported then
            }
            state = State.RUNNING;
            runner = Thread.currentThread();
        } finally {
            lock.unlock();
        }
        Optional<Grant> grant = Optional.empty();
        Throwable failure = null;
        try {
            grant = call.run();
        } catch (InterruptedException | RuntimeException | Error e) {
            // An Error too: reported, else its acquisition would wait for this call forever.
            failure = e;
        } finally {
            lock.lock();
            try {
                state = State.DONE;
                runner = null;
                Thread.interrupted(); // a cancel that came as the call returned is not the pool's
            } finally {
                lock.unlock();
            }
        }
        report.accept(grant, failure);
    }
}
