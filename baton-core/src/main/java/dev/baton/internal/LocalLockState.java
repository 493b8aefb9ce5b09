package dev.baton.internal;

import dev.baton.spi.LockMode;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * What one client knows about one (name, mode) pair: which thread holds which grant (for the
 * thread-bound {@code Lock} view and reentrancy), and, for exclusive locks, a fair local gate so
 * that only one thread of this client at a time competes for the lock on the backend. The gate is
 * a semaphore, not a lock, because the lease that holds it may be released from another thread.
 */
final class LocalLockState {
    final String name;
    final LockMode mode;
    final Map<Thread, HeldGrant> holders = new ConcurrentHashMap<>();
    final ReleaseSignal signal = new ReleaseSignal();
    /** Fair, one permit; unused for shared mode, where holders are compatible with each other. */
    final Semaphore gate = new Semaphore(1, true);
    /** Guarded by the client's state map: attempts in progress plus grants held. */
    int users;

    LocalLockState(String name, LockMode mode) {
        this.name = name;
        this.mode = mode;
    }

    boolean gated() {
        return mode == LockMode.EXCLUSIVE;
    }

    record Key(String name, LockMode mode) {}
}
