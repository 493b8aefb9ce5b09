package dev.baton.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What a backend returns when it grants a lock.
 *
 * @param name the lock name
 * @param ownerId the owner id of the request that was granted
 * @param mode the mode granted
 * @param fencingToken strictly increasing per lock name across grants to new owners
 * @param expiresAt the expiry as computed by the backend's clock (informational for the core)
 * @param backendState anything the backend needs to renew or release this grant (a node path, a
 *     pinned connection); {@code null} when it needs nothing
 * @param validity how long the core may treat the grant as held, counted from when it called the
 *     backend (tryAcquire or renew), when that is shorter than the lease time: Redlock subtracts the
 *     time spent and the clock drift, a lock handed over to a queued waiter subtracts the time since
 *     the waiter's last request. {@code null} means the full lease time
 */
public record Grant(
        String name,
        String ownerId,
        LockMode mode,
        long fencingToken,
        Instant expiresAt,
        Object backendState,
        Duration validity) {
    /**
     * Checks the required components.
     *
     * @param name the lock name
     * @param ownerId the owner id of the request that was granted
     * @param mode the mode granted
     * @param fencingToken strictly increasing per lock name across grants to new owners
     * @param expiresAt the expiry as computed by the backend's clock
     * @param backendState what the backend needs to renew or release the grant, or {@code null}
     * @param validity how long the core may treat the grant as held, or {@code null} for the full
     *     lease time
     * @throws NullPointerException if {@code name}, {@code ownerId}, {@code mode} or {@code
     *     expiresAt} is null
     */
    public Grant {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(ownerId, "ownerId");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }

    /**
     * A grant valid for the full lease time.
     *
     * @param name the lock name
     * @param ownerId the owner id of the request that was granted
     * @param mode the mode granted
     * @param fencingToken strictly increasing per lock name across grants to new owners
     * @param expiresAt the expiry as computed by the backend's clock
     * @param backendState what the backend needs to renew or release the grant, or {@code null}
     * @throws NullPointerException if {@code name}, {@code ownerId}, {@code mode} or {@code
     *     expiresAt} is null
     */
    public Grant(
            String name, String ownerId, LockMode mode, long fencingToken, Instant expiresAt, Object backendState) {
        this(name, ownerId, mode, fencingToken, expiresAt, backendState, null);
    }

    /**
     * This grant with a new expiry, as returned by a renewal (valid for the full lease time).
     *
     * @param newExpiry the expiry the backend computed for the renewal
     * @return a copy with {@code newExpiry} and no shortened validity; owner, token and state kept
     */
    public Grant withExpiresAt(Instant newExpiry) {
        return new Grant(name, ownerId, mode, fencingToken, newExpiry, backendState, null);
    }

    /**
     * This grant, valid for {@code newValidity} from the call that returned it.
     *
     * @param newValidity how long the core may treat the grant as held, counted from when it called
     *     the backend; {@code null} for the full lease time
     * @return a copy that differs only in its validity
     */
    public Grant withValidity(Duration newValidity) {
        return new Grant(name, ownerId, mode, fencingToken, expiresAt, backendState, newValidity);
    }

    /**
     * The validity in nanoseconds, at most {@code leaseTime}.
     *
     * @param leaseTime the lease time the grant was requested with
     * @return {@code leaseTime} in nanoseconds, or the shorter {@link #validity()} when there is one
     */
    public long validityNanos(Duration leaseTime) {
        long lease = leaseTime.toNanos();
        return validity == null ? lease : Math.min(lease, validity.toNanos());
    }
}
