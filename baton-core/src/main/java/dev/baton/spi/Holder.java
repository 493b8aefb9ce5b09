package dev.baton.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * One holder of a lock or of a semaphore's permit, as a backend reports it ({@link LockInfo}).
 *
 * @param ownerId the owner id of the holder's grant (32 hex characters), the key {@link
 *     LockBackend#forceRelease(String, String)} takes
 * @param description who holds it, as the holder's client recorded it ({@link
 *     LockRequest#holder()}: client name, host, process id, thread); empty when the grant was taken by
 *     a client that recorded none or the backend cannot store one
 * @param fencingToken the holder's fencing token
 * @param expiresAt when the grant expires without renewal, on the backend's clock; for a backend whose
 *     grants end with a session rather than a lease (ZooKeeper), the latest time the session can end
 */
public record Holder(String ownerId, String description, long fencingToken, Instant expiresAt) {
    /**
     * Checks that every component is present.
     *
     * @param ownerId the owner id of the holder's grant
     * @param description who holds it; empty when unknown
     * @param fencingToken the holder's fencing token
     * @param expiresAt when the grant expires without renewal
     * @throws NullPointerException if a component is null
     */
    public Holder {
        Objects.requireNonNull(ownerId, "ownerId");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }
}
