package dev.baton.spi;

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
 */
public record Grant(
        String name, String ownerId, LockMode mode, long fencingToken, Instant expiresAt, Object backendState) {
    public Grant {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(ownerId, "ownerId");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }

    /** This grant with a new expiry, as returned by a renewal. */
    public Grant withExpiresAt(Instant newExpiry) {
        return new Grant(name, ownerId, mode, fencingToken, newExpiry, backendState);
    }
}
