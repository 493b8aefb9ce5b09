package dev.baton;

import java.time.Instant;
import java.util.Objects;

/**
 * One holder of a lock or of a semaphore's permit, as its backend reports it ({@link LockInfo},
 * {@link LockAdmin}). Immutable; made with {@link #of}, so that a field can be added later without
 * breaking a backend that makes one.
 */
public final class Holder {
    private final String ownerId;
    private final String description;
    private final long fencingToken;
    private final Instant expiresAt;

    private Holder(String ownerId, String description, long fencingToken, Instant expiresAt) {
        this.ownerId = Objects.requireNonNull(ownerId, "ownerId");
        this.description = Objects.requireNonNull(description, "description");
        this.fencingToken = fencingToken;
        this.expiresAt = Objects.requireNonNull(expiresAt, "expiresAt");
    }

    /**
     * A holder.
     *
     * @param ownerId the owner id of the holder's grant (32 hex characters), the key {@link
     *     LockAdmin#forceRelease(String, String)} takes
     * @param description who holds it, as the holder's client recorded it (client name, host, process
     *     id, thread); empty when the grant was taken by a client that recorded none or the backend
     *     cannot store one
     * @param fencingToken the holder's fencing token
     * @param expiresAt when the grant expires without renewal, on the backend's clock; for a backend
     *     whose grants end with a session rather than a lease (ZooKeeper), the latest time the
     *     session can end
     * @return the holder
     * @throws NullPointerException if {@code ownerId}, {@code description} or {@code expiresAt} is null
     */
    public static Holder of(String ownerId, String description, long fencingToken, Instant expiresAt) {
        return new Holder(ownerId, description, fencingToken, expiresAt);
    }

    /**
     * The owner id of the holder's grant.
     *
     * @return 32 hex characters
     */
    public String ownerId() {
        return ownerId;
    }

    /**
     * Who holds it.
     *
     * @return the client name, host, process id and thread, or empty when unknown
     */
    public String description() {
        return description;
    }

    /**
     * The holder's fencing token.
     *
     * @return the token of its grant
     */
    public long fencingToken() {
        return fencingToken;
    }

    /**
     * When the grant expires without renewal, on the backend's clock.
     *
     * @return the expiry
     */
    public Instant expiresAt() {
        return expiresAt;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Holder that
                && ownerId.equals(that.ownerId)
                && description.equals(that.description)
                && fencingToken == that.fencingToken
                && expiresAt.equals(that.expiresAt);
    }

    @Override
    public int hashCode() {
        return Objects.hash(ownerId, description, fencingToken, expiresAt);
    }

    @Override
    public String toString() {
        return "Holder[" + ownerId + (description.isEmpty() ? "" : " (" + description + ")") + ", token " + fencingToken
                + ", expires " + expiresAt + "]";
    }
}
