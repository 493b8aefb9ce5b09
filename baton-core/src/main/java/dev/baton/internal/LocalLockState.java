package dev.baton.internal;

import dev.baton.LockMode;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

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
    final String name;
    final LockMode mode;
    /** The semaphore's permit count, or 0 for a lock. */
    final int permits;

    final Map<Thread, HeldGrant> holders = new ConcurrentHashMap<>();
    /** Acquisitions past the gate, waiting on the backend: a release in this client wakes them. */
    final Set<Acquisition> waiters = ConcurrentHashMap.newKeySet();
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
        this.gate = new AsyncGate(permits == 0 ? 1 : permits);
    }

    Key key() {
        return new Key(name, mode, permits);
    }

    /** A grant of this client was released: its waiters try again at once. */
    void wakeWaiters() {
        for (Acquisition waiter : waiters) {
            waiter.poke();
        }
    }

    boolean gated() {
        return mode == LockMode.EXCLUSIVE || permits > 0;
    }

    /** A lock by (name, mode) with permits 0; a semaphore by (name, shared, its permit count). */
    record Key(String name, LockMode mode, int permits) {}
}
