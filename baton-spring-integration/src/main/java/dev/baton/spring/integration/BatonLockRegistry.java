package dev.baton.spring.integration;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockLostException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration {@link RenewableLockRegistry} backed by a Baton {@link LockClient}: the
 * aggregator's lock registry, {@code LockRegistryLeaderInitiator}, {@code executeLocked} and
 * anything else that takes a {@code LockRegistry} run on any Baton backend with {@code new
 * BatonLockRegistry(client)}.
 *
 * <p>{@link #obtain(Object)} returns Baton's {@link DistributedLock} for the key, a {@link
 * java.util.concurrent.locks.Lock} with the semantics Spring Integration expects:
 *
 * <ul>
 *   <li>{@code lock}/{@code unlock} on the same thread; {@code unlock} by a thread that does not
 *       hold it throws {@link IllegalMonitorStateException} and releases nothing;
 *   <li>reentrant per thread: only the last {@code unlock} releases on the backend;
 *   <li>{@code tryLock()} never waits; {@code tryLock(time, unit)} waits at most {@code time};
 *       {@code lockInterruptibly()} and {@code tryLock(time, unit)} answer an interrupt with {@link
 *       InterruptedException} and leave nothing on the backend;
 *   <li>{@code newCondition()} throws {@link UnsupportedOperationException}.
 * </ul>
 *
 * <p>Keys must be {@link String}s (as for Spring Integration's JDBC and Redis registries); the
 * string is the Baton lock name, so every registry over the same backend shares the lock. Leases
 * use the client's {@code LockOptions}: the lease time is Spring Integration's time-to-live, and with
 * auto-renewal on (the default) Baton renews held locks at a third of it. A lock whose lease is lost
 * (the backend unreachable for longer than the lease time) is reported by {@link #renewLock(Object)}
 * and by the next reentrant {@code tryLock} of its holder; its {@code unlock} does not throw but
 * logs. Handles are not cached, so there is nothing to expire ({@code ExpirableLockRegistry} is not
 * needed). The registry never closes the client.
 */
public final class BatonLockRegistry implements RenewableLockRegistry<DistributedLock> {
    private final LockClient client;

    /**
     * A registry over {@code client}, which stays owned (and closed) by the caller.
     *
     * @param client the client whose exclusive locks the registry hands out, with its options
     * @throws NullPointerException if {@code client} is null
     */
    public BatonLockRegistry(LockClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * The lock for {@code lockKey}. No I/O.
     *
     * @throws LockConfigurationException if the key is not a String, or a name Baton refuses (empty,
     *     over 512 UTF-8 bytes, control characters)
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        return client.lock(nameOf(lockKey));
    }

    /**
     * Renews the current thread's lease of {@code lockKey}. With auto-renewal on (the default) Baton
     * renews held leases by itself, so there is nothing to send: this confirms that the lease is
     * valid and its renewal running. With auto-renewal off, the lease is extended by the client's
     * lease time from now ({@link Lease#extend}).
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock, or its lease
     *     was lost (the message says which)
     */
    @Override
    public void renewLock(Object lockKey) {
        renew(
                nameOf(lockKey),
                client.options().autoRenew() ? null : client.options().leaseTime());
    }

    /**
     * Extends the current thread's lease of {@code lockKey} to {@code ttl} from now ({@link
     * Lease#extend}): the time-to-live replaces what was left, it is not added to it. On an
     * auto-renewed lease (the default) the following automatic renewals go on with the client's
     * lease time, so {@code ttl} must be at least that; with auto-renewal off, the lease expires
     * {@code ttl} after this call unless renewed again.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock, or its lease
     *     was lost
     * @throws IllegalArgumentException if {@code ttl} is null, zero or negative
     * @throws LockConfigurationException if, with auto-renewal on, {@code ttl} is shorter than the
     *     client's lease time, or the backend cannot keep a lease for {@code ttl} (Azure Blob: 15 s
     *     up to the lease time it was taken with; etcd: at most that in whole seconds), as {@link
     *     Lease#extend} refuses them
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        String name = nameOf(lockKey);
        if (ttl == null || ttl.isZero() || ttl.isNegative()) {
            throw new IllegalArgumentException("Baton lock '" + name + "' on " + client.backendName()
                    + ": cannot renew with a time-to-live of " + ttl + "; give a positive duration");
        }
        renew(name, ttl);
    }

    /** Checks the current thread's hold of {@code name}, then extends it by {@code ttl} unless null. */
    private void renew(String name, Duration ttl) {
        DistributedLock lock = client.lock(name);
        if (!lock.isHeldByCurrentThread()) {
            if (lock.holdCount() > 0) {
                throw lost(name, null);
            }
            throw new IllegalMonitorStateException("Baton lock '" + name + "' on " + client.backendName()
                    + ": the current thread (" + Thread.currentThread().getName()
                    + ") does not hold it, so it cannot renew it; renew from the thread that locked it");
        }
        // A reentrant hold of the same grant (no I/O) tells whether its lease is still valid, and
        // extends the grant every hold shares.
        Optional<Lease> hold;
        try {
            hold = lock.tryAcquire();
        } catch (LockLostException e) {
            throw lost(name, e);
        }
        try (Lease lease = hold.orElseThrow(() -> new IllegalMonitorStateException(
                "Baton lock '" + name + "' on " + client.backendName() + ": no longer held by this thread"))) {
            if (ttl == null) {
                lease.checkValid();
            } else {
                lease.extend(ttl);
            }
        } catch (LockLostException e) {
            throw lost(name, e);
        }
    }

    private String nameOf(Object lockKey) {
        if (lockKey instanceof String name) {
            return name;
        }
        throw new LockConfigurationException("BatonLockRegistry on " + client.backendName()
                + ": lock keys must be Strings (the Baton lock name) but got "
                + (lockKey == null ? "null" : lockKey.getClass().getName() + " '" + lockKey + "'")
                + "; pass a String key");
    }

    private IllegalMonitorStateException lost(String name, LockLostException e) {
        IllegalMonitorStateException failure = new IllegalMonitorStateException("Baton lock '" + name + "' on "
                + client.backendName() + ": its lease was lost (another owner may hold the lock now), so it cannot"
                + " be renewed; unlock it and lock again" + (e == null ? "" : " (" + e.getMessage() + ")"));
        if (e != null) {
            failure.initCause(e);
        }
        return failure;
    }

    @Override
    public String toString() {
        return "BatonLockRegistry[" + client.backendName() + "]";
    }
}
