package dev.baton.internal;

import dev.baton.LockMode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What one client knows about one (name, mode) pair, or one semaphore: which thread holds which grant (for the
 * thread-bound {@code Lock} view and reentrancy), which acquisitions wait on the backend now (a
 * release in this client wakes them), and, for exclusive locks, a fair local gate so that only one
 * acquisition of this client at a time competes for the lock on the backend. The gate is not a lock,
 * because the lease that holds it may be released from another thread, and its waiters hold no
 * thread. For a semaphore the gate has as many permits as the semaphore, so that no more of this
 * client's acquisitions compete on the backend than could be granted.
 */
final class LocalLockState {
    private static final VarHandle HOLDERS;

    static {
        try {
            HOLDERS = MethodHandles.lookup().findVarHandle(LocalLockState.class, "holders", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final String name;
    final LockMode mode;
    /** The semaphore's permit count, or 0 for a lock. */
    final int permits;

    /*
     * The thread-bound grants, by their thread: null, one HeldGrant, or a HeldGrant[] of several
     * (a shared lock's), replaced whole on each change (a copy of as many as one client's threads
     * hold it at once). Not a map: a client may hold tens of thousands of locks, nearly all with one
     * holder, and a map per lock would outweigh the grant.
     */
    private volatile Object holders;
    /** Guards the gate and the waiters: each is held for a few field updates only. */
    private final ReentrantLock lock = new ReentrantLock();
    /*
     * Acquisitions past the gate, waiting on the backend: a release in this client wakes them. The
     * first in a field and any more in a list made when needed, so that neither the many locks a
     * client holds nor an uncontended acquisition pay for a collection.
     */
    private Acquisition firstWaiter;

    private List<Acquisition> moreWaiters;
    /**
     * Fair, one permit (a semaphore's count for a semaphore); unused for a shared lock, whose holders
     * are compatible with each other.
     */
    final AsyncGate gate;
    /** Guarded by the client's state map: attempts in progress plus grants held. */
    int users;

    LocalLockState(Key key) {
        this.name = key.name();
        this.mode = key.mode();
        this.permits = key.permits();
        this.gate = new AsyncGate(permits == 0 ? 1 : permits, lock);
    }

    Key key() {
        return new Key(name, mode, permits);
    }

    /** The grant {@code thread} holds for its reentrant holds, or null. */
    HeldGrant holderOf(Thread thread) {
        Object current = holders;
        if (current instanceof HeldGrant one) {
            return one.thread == thread ? one : null;
        }
        if (current instanceof HeldGrant[] several) {
            for (HeldGrant grant : several) {
                if (grant.thread == thread) {
                    return grant;
                }
            }
        }
        return null;
    }

    /** Records {@code grant} as its thread's, in place of one that thread held before. */
    void addHolder(HeldGrant grant) {
        while (true) {
            Object current = holders;
            Object next;
            if (current == null) {
                next = grant;
            } else if (current instanceof HeldGrant one) {
                next = one.thread == grant.thread ? grant : new HeldGrant[] {one, grant};
            } else {
                HeldGrant[] several = (HeldGrant[]) current;
                HeldGrant[] copy = Arrays.copyOf(several, several.length + 1);
                copy[several.length] = grant;
                for (int i = 0; i < several.length; i++) {
                    if (several[i].thread == grant.thread) {
                        copy = Arrays.copyOf(several, several.length);
                        copy[i] = grant;
                        break;
                    }
                }
                next = copy;
            }
            if (HOLDERS.compareAndSet(this, current, next)) {
                return;
            }
        }
    }

    /** Forgets {@code grant} as its thread's, if it still is. */
    void removeHolder(HeldGrant grant) {
        while (true) {
            Object current = holders;
            Object next;
            if (current == grant) {
                next = null;
            } else if (current instanceof HeldGrant[] several) {
                int at = Arrays.asList(several).indexOf(grant);
                if (at < 0) {
                    return;
                }
                if (several.length == 2) {
                    next = several[1 - at];
                } else {
                    HeldGrant[] copy = new HeldGrant[several.length - 1];
                    System.arraycopy(several, 0, copy, 0, at);
                    System.arraycopy(several, at + 1, copy, at, several.length - at - 1);
                    next = copy;
                }
            } else {
                return;
            }
            if (HOLDERS.compareAndSet(this, current, next)) {
                return;
            }
        }
    }

    /** {@code waiter} waits on the backend: a release in this client wakes it ({@link #wakeWaiters}). */
    void addWaiter(Acquisition waiter) {
        lock.lock();
        try {
            if (firstWaiter == null) {
                firstWaiter = waiter;
                return;
            }
            if (moreWaiters == null) {
                moreWaiters = new ArrayList<>(4);
            }
            moreWaiters.add(waiter);
        } finally {
            lock.unlock();
        }
    }

    /** {@code waiter} no longer waits (nothing if it never did). */
    void removeWaiter(Acquisition waiter) {
        lock.lock();
        try {
            if (firstWaiter == waiter) {
                firstWaiter = null;
            } else if (moreWaiters != null && moreWaiters.remove(waiter) && moreWaiters.isEmpty()) {
                moreWaiters = null;
            }
        } finally {
            lock.unlock();
        }
    }

    /** A grant of this client was released: its waiters try again at once (poked with no lock held). */
    void wakeWaiters() {
        Acquisition first;
        Acquisition[] more;
        lock.lock();
        try {
            first = firstWaiter;
            more = moreWaiters == null ? null : moreWaiters.toArray(new Acquisition[0]);
        } finally {
            lock.unlock();
        }
        if (first != null) {
            first.poke();
        }
        if (more != null) {
            for (Acquisition waiter : more) {
                waiter.poke();
            }
        }
    }

    boolean gated() {
        return mode == LockMode.EXCLUSIVE || permits > 0;
    }

    /** A lock by (name, mode) with permits 0; a semaphore by (name, shared, its permit count). */
    record Key(String name, LockMode mode, int permits) {}
}
