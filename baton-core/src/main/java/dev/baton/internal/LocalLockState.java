package dev.baton.internal;

import dev.baton.spi.LockMode;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * What one client knows about one (name, mode) pair, or one semaphore: which thread holds which grant (for the
 * thread-bound {@code Lock} view and reentrancy), and, for exclusive locks, a fair local gate so
 * that only one thread of this client at a time competes for the lock on the backend. The gate is
 * a semaphore, not a lock, because the lease that holds it may be released from another thread.
 * For a semaphore the gate has as many permits as the semaphore, so that no more of this client's
 * threads compete on the backend than could be granted.
 */
final class LocalLockState {
    final String name;
    final LockMode mode;
    /** The semaphore's permit count, or 0 for a lock. */
    final int permits;

    final Map<Thread, HeldGrant> holders = new ConcurrentHashMap<>();
    final ReleaseSignal signal = new ReleaseSignal();
    /**
     * Fair, one permit (a semaphore's count for a semaphore); unused for a shared lock, whose holders
     * are compatible with each other.
     */
    final Semaphore gate;
    /** Guarded by the client's state map: attempts in progress plus grants held. */
    int users;

    LocalLockState(Key key) {
        this.name = key.name();
        this.mode = key.mode();
        this.permits = key.permits();
        this.gate = new Semaphore(permits == 0 ? 1 : permits, true);
    }

    Key key() {
        return new Key(name, mode, permits);
    }

    boolean gated() {
        return mode == LockMode.EXCLUSIVE || permits > 0;
    }

    /** A lock by (name, mode) with permits 0; a semaphore by (name, shared, its permit count). */
    record Key(String name, LockMode mode, int permits) {}
}
