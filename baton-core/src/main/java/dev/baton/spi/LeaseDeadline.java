package dev.baton.spi;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The local lease deadline of one held grant, for backends whose server-side lease is wider than a
 * lock (a ZooKeeper session, a client's etcd lease): such a backend ends a grant itself once its
 * lease time runs out without a renewal, since the server would keep the grant as long as the wider
 * lease lives.
 *
 * <p>Time is in {@link System#nanoTime()} units. A renewal moves the deadline forward ({@link
 * #extend}) unless the grant already ran out; the backend's sweep asks {@link #expireIfDue}, which
 * says true exactly once, when the deadline passed first; after {@link #release()} it never does. Safe
 * for concurrent use; no method blocks beyond a short lock. A stable part of the SPI for backend
 * authors whose server-side lease outlives a single lock.
 */
public final class LeaseDeadline {
    /*
     * A backend may hold tens of thousands of deadlines, and a lock of their own would weigh more
     * than the rest of one: they share a few locks instead, each held only for a few field reads
     * and writes, never across a call.
     */
    private static final ReentrantLock[] STRIPES = new ReentrantLock[64];
    private static final AtomicInteger NEXT_STRIPE = new AtomicInteger();

    static {
        for (int i = 0; i < STRIPES.length; i++) {
            STRIPES[i] = new ReentrantLock();
        }
    }

    private final ReentrantLock state = STRIPES[NEXT_STRIPE.getAndIncrement() & (STRIPES.length - 1)];
    private long deadlineNanos;
    private boolean released;
    private volatile boolean expired;

    /**
     * A deadline at {@code deadlineNanos} ({@link System#nanoTime()} units).
     *
     * @param deadlineNanos the {@link System#nanoTime()} value at which the lease time runs out
     */
    public LeaseDeadline(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    /**
     * Moves the deadline forward; never moves it back.
     *
     * @param deadline the new deadline in {@link System#nanoTime()} units; ignored if earlier than
     *     the current one
     * @return {@code false} if the lease time already ran out (the renewal came too late), else
     *     {@code true}
     */
    public boolean extend(long deadline) {
        state.lock();
        try {
            if (expired) {
                return false;
            }
            deadlineNanos = Math.max(deadlineNanos, deadline);
            return true;
        } finally {
            state.unlock();
        }
    }

    /** The grant was released: its deadline no longer ends it. */
    public void release() {
        state.lock();
        try {
            released = true;
        } finally {
            state.unlock();
        }
    }

    /**
     * Marks the lease time run out if the deadline passed at {@code now}.
     *
     * @param now the current {@link System#nanoTime()} value
     * @return {@code true} for exactly one call, the first that finds the deadline passed; {@code
     *     false} after {@link #release()}, before the deadline, and for every later call
     */
    public boolean expireIfDue(long now) {
        state.lock();
        try {
            if (released || expired || deadlineNanos - now > 0) {
                return false;
            }
            expired = true;
            return true;
        } finally {
            state.unlock();
        }
    }

    /**
     * Whether the lease time ran out.
     *
     * @return {@code true} once {@link #expireIfDue} has returned {@code true}
     */
    public boolean expired() {
        return expired;
    }
}
