package dev.baton.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The local gate of one lock (or semaphore) in one client: at most {@code permits} of the client's
 * acquisitions compete on the backend at a time, and the others wait here in arrival order, holding
 * no thread. Why a gate: the client's own waiters would otherwise race each other on the backend
 * (and on a fair backend queue behind each other), costing round trips for nothing. Why not a {@code
 * java.util.concurrent.Semaphore}: its waiters are parked threads, and an asynchronous waiter has
 * none.
 *
 * <p>A permit passes straight from a releasing holder to the longest waiting acquisition, so the gate
 * is fair; {@link Acquisition#gateOpened()} is called without the gate's lock held.
 */
final class AsyncGate {
    /** The lock of its {@link LocalLockState}, which also guards the waiters there; held for field updates only. */
    private final ReentrantLock lock;
    /** Made when the first acquisition lines up: most gates of a client that holds many locks never queue. */
    private ArrayDeque<Acquisition> waiting;

    private int permits;

    AsyncGate(int permits, ReentrantLock lock) {
        this.permits = permits;
        this.lock = lock;
    }

    /**
     * Takes a permit if one is free and nobody waits; otherwise, with {@code queue}, lines up.
     *
     * @return true if the permit was taken now
     */
    boolean enter(Acquisition acquisition, boolean queue) {
        lock.lock();
        try {
            if (permits > 0 && (waiting == null || waiting.isEmpty())) {
                permits--;
                return true;
            }
            if (queue) {
                if (waiting == null) {
                    waiting = new ArrayDeque<>(4);
                }
                waiting.add(acquisition);
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes a queued acquisition out of the line.
     *
     * @return true if it was still waiting; false if the permit was handed to it meanwhile (it must
     *     then {@link #release()} it)
     */
    boolean leave(Acquisition acquisition) {
        lock.lock();
        try {
            return waiting != null && waiting.remove(acquisition);
        } finally {
            lock.unlock();
        }
    }

    /** Gives a permit back: to the longest waiting acquisition if there is one. */
    void release() {
        Acquisition next;
        lock.lock();
        try {
            next = waiting == null ? null : waiting.poll();
            if (next == null) {
                permits++;
                return;
            }
        } finally {
            lock.unlock();
        }
        next.gateOpened();
    }

    /** Whether an acquisition waits here, or every permit is taken. */
    boolean busy() {
        lock.lock();
        try {
            return permits == 0 || (waiting != null && !waiting.isEmpty());
        } finally {
            lock.unlock();
        }
    }

    /** The acquisitions waiting now (the client closes them). */
    List<Acquisition> waiting() {
        lock.lock();
        try {
            return waiting == null ? new ArrayList<>() : new ArrayList<>(waiting);
        } finally {
            lock.unlock();
        }
    }
}
