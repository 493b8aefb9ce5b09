package dev.baton.etcd;

import dev.baton.spi.LeaseDeadline;
import io.etcd.jetcd.ByteSequence;
import java.time.Duration;

/**
 * A granted key as this client holds it: its lease time without renewal (the session's sweep deletes
 * the key when it runs out), and whether it is known lost (its lease is gone, or a renewal found the
 * key deleted by someone else).
 */
final class EtcdHeldKey {
    final String lockName;
    /** The semaphore's permits, or 0 for a lock: how {@link #subject()} words the grant. */
    private final int permits;

    private final EtcdCalls calls;

    final ByteSequence key;
    /** The key's create revision: the fencing token. */
    final long revision;

    final EtcdSession.ClientLease lease;
    final Duration leaseTime;
    private final LeaseDeadline deadline;
    /** Set when a renewal found the key gone or re-created: someone else deleted it. */
    volatile boolean deletedElsewhere;

    EtcdHeldKey(
            String lockName,
            int permits,
            EtcdCalls calls,
            ByteSequence key,
            long revision,
            EtcdSession.ClientLease lease,
            Duration leaseTime,
            long now) {
        this.lockName = lockName;
        this.permits = permits;
        this.calls = calls;
        this.key = key;
        this.revision = revision;
        this.lease = lease;
        this.leaseTime = leaseTime;
        this.deadline = new LeaseDeadline(now + leaseTime.toNanos());
    }

    /**
     * How messages name the grant: {@code Baton lock 'a' on ...} or {@code Baton semaphore 'a' (4
     * permits) on ...}; built when needed, not kept for every held key.
     */
    String subject() {
        return permits == 0 ? calls.describe(lockName) : calls.describeSemaphore(lockName, permits);
    }

    /** Whether the grant still holds as far as this client knows. */
    boolean valid() {
        return !deadline.expired() && !deletedElsewhere && !lease.dead;
    }

    /** Moves the local lease deadline; false if the lease time already ran out. */
    boolean extend(long deadline) {
        return this.deadline.extend(deadline);
    }

    void release() {
        deadline.release();
    }

    /** Marks the lease time run out if its deadline passed; true if this call did. */
    boolean expireIfDue(long now) {
        return deadline.expireIfDue(now);
    }
}
