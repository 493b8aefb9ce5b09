package dev.baton.internal;

import java.util.concurrent.TimeUnit;
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
    private long generation;

    long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    void signal() {
        lock.lock();
        try {
            generation++;
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until a signal after {@code seenGeneration} or until {@code nanos} pass.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    void await(long seenGeneration, long nanos) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            long remaining = nanos;
            while (generation == seenGeneration && remaining > 0) {
                remaining = released.awaitNanos(remaining);
            }
        } finally {
            lock.unlock();
        }
    }

    static long toNanos(long amount, TimeUnit unit) {
        return unit.toNanos(amount);
    }
}
