package dev.baton.etcd;

import io.etcd.jetcd.ByteSequence;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A granted key as this client holds it: its lease time without renewal (the session's sweep deletes
 * the key when it runs out), and whether it is known lost (its lease is gone, or a renewal found the
 * key deleted by someone else).
 */
final class EtcdHeldKey {
    final String lockName;
    final ByteSequence key;
    /** The key's create revision: the fencing token. */
    final long revision;

    final EtcdSession.ClientLease lease;
    final Duration leaseTime;
    private final ReentrantLock state = new ReentrantLock();
    private long deadlineNanos;
    private boolean released;
    private volatile boolean expired;
    /** Set when a renewal found the key gone or re-created: someone else deleted it. */
    volatile boolean deletedElsewhere;

    EtcdHeldKey(
            String lockName,
            ByteSequence key,
            long revision,
            EtcdSession.ClientLease lease,
            Duration leaseTime,
            long now) {
        this.lockName = lockName;
        this.key = key;
        this.revision = revision;
        this.lease = lease;
        this.leaseTime = leaseTime;
        this.deadlineNanos = now + leaseTime.toNanos();
    }

    /** Whether the grant still holds as far as this client knows. */
    boolean valid() {
        return !expired && !deletedElsewhere && !lease.dead;
    }

    /** Moves the local lease deadline; false if the lease time already ran out. */
    boolean extend(long deadline) {
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

    void release() {
        state.lock();
        try {
            released = true;
        } finally {
            state.unlock();
        }
    }

    /** Marks the lease time run out if its deadline passed; true if this call did. */
    boolean expireIfDue(long now) {
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
}
