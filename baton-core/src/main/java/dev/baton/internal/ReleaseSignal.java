package dev.baton.internal;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where a waiter parks between two attempts. A release in this client or a backend notification
 * wakes it early; otherwise it wakes when its backoff pause ends. Only the gate holder of an
 * exclusive lock (one thread per name per client) or compatible shared waiters park here, so waking
 * them all never stampedes.
 */
final class ReleaseSignal {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private final AtomicLong generation = new AtomicLong();
    /** Threads inside {@link #await}: a release with nobody waiting costs one increment. */
    private final AtomicInteger waiters = new AtomicInteger();

    long generation() {
        return generation.get();
    }

    void signal() {
        generation.incrementAndGet();
        // A waiter that registers after this read sees the new generation before it parks.
        if (waiters.get() > 0) {
            lock.lock();
            try {
                released.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Waits until a signal after {@code seenGeneration} or until {@code nanos} pass.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    void await(long seenGeneration, long nanos) throws InterruptedException {
        waiters.incrementAndGet();
        try {
            lock.lockInterruptibly();
            try {
                long remaining = nanos;
                while (generation.get() == seenGeneration && remaining > 0) {
                    remaining = released.awaitNanos(remaining);
                }
            } finally {
                lock.unlock();
            }
        } finally {
            waiters.decrementAndGet();
        }
    }
}
