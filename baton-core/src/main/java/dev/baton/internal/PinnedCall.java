package dev.baton.internal;

import dev.baton.spi.Grant;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;

/**
 * A blocking wait of an asynchronous acquisition ({@link dev.baton.spi.Waiting#blocking}), run on the
 * client's pinned pool. Why not a {@code Future}: a cancelled {@code FutureTask} that has not started
 * never runs, so it would never report back; this one always reports, once, and is interrupted only
 * while it runs (an interrupt makes the backend withdraw its request).
 */
final class PinnedCall implements Runnable {
    /** The blocking call. */
    interface Call {
        Optional<Grant> run() throws InterruptedException;
    }

    private final Call call;
    private final BiConsumer<Optional<Grant>, Exception> report;
    private final ReentrantLock lock = new ReentrantLock();
    private Thread runner;
    private boolean cancelled;

    /** @param report told the outcome once: the grant (or empty), or the failure or interrupt */
    PinnedCall(Call call, BiConsumer<Optional<Grant>, Exception> report) {
        this.call = call;
        this.report = report;
    }

    /** Interrupts the call if it runs, or keeps it from running; it reports either way. */
    void cancel() {
        lock.lock();
        try {
            cancelled = true;
            if (runner != null) {
                runner.interrupt();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void run() {
        lock.lock();
        try {
            if (cancelled) {
                report.accept(Optional.empty(), new InterruptedException());
                return;
            }
            runner = Thread.currentThread();
        } finally {
            lock.unlock();
        }
        Optional<Grant> grant = Optional.empty();
        Exception failure = null;
        try {
            grant = call.run();
        } catch (InterruptedException | RuntimeException e) {
            failure = e;
        } finally {
            lock.lock();
            try {
                runner = null;
                Thread.interrupted(); // a cancel that came as the call returned is not the pool's
            } finally {
                lock.unlock();
            }
        }
        report.accept(grant, failure);
    }
}
