package dev.baton.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * One attempt to take a lock, as the core hands it to a backend.
 *
 * @param name the validated lock name
 * @param ownerId 32 lowercase hex characters, unique to this acquisition (across processes too); the
 *     backend stores it and releases or renews only when it matches
 * @param kind what the caller asked for (a plain lock, or the read or write side of a read/write
 *     lock); its {@link #mode()} says exclusive or shared. Backends with one form per mode ignore it
 * @param leaseTime how long the grant lives without renewal, measured by the backend's clock
 * @param permits for a {@link LockKind#PERMIT}, the semaphore's number of permits (at least 1), which
 *     the backend stores with the name on first use and refuses to change (a request with another
 *     count fails with {@link dev.baton.LockConfigurationException}); 1 for every other kind
 * @param holder who asks, for operators ({@link Holder#description()}): the client's name if it has
 *     one, the host, the process id and the thread, at most {@link #HOLDER_MAX_LENGTH} characters
 *     without control characters; empty when unknown. A backend stores it beside the owner id where
 *     it can (encoding it as its store requires) and reports it from {@link LockBackend#inspect} and
 *     {@link LockBackend#list}; it never decides anything by it
 */
public record LockRequest(String name, String ownerId, LockKind kind, Duration leaseTime, int permits, String holder) {
    /** The longest holder description the core sends. */
    public static final int HOLDER_MAX_LENGTH = 120;

    /**
     * A request without a holder description.
     *
     * @param name the validated lock name
     * @param ownerId 32 lowercase hex characters, unique to this acquisition
     * @param kind what the caller asked for
     * @param leaseTime how long the grant lives without renewal
     * @param permits the semaphore's permit count for a {@link LockKind#PERMIT}, 1 otherwise
     * @throws NullPointerException if a component is null
     * @throws IllegalArgumentException if {@code permits} is below 1, or not 1 for a lock
     */
    public LockRequest(String name, String ownerId, LockKind kind, Duration leaseTime, int permits) {
        this(name, ownerId, kind, leaseTime, permits, "");
    }

    /**
     * Checks that every component is present.
     *
     * @param name the validated lock name
     * @param ownerId 32 lowercase hex characters, unique to this acquisition
     * @param kind what the caller asked for
     * @param leaseTime how long the grant lives without renewal
     * @param permits the semaphore's permit count for a {@link LockKind#PERMIT}, 1 otherwise
     * @param holder who asks; empty when unknown
     * @throws NullPointerException if a component is null
     * @throws IllegalArgumentException if {@code permits} is below 1, or not 1 for a lock, or {@code
     *     holder} is longer than {@link #HOLDER_MAX_LENGTH}
     */
    public LockRequest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(ownerId, "ownerId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(leaseTime, "leaseTime");
        Objects.requireNonNull(holder, "holder");
        if (holder.length() > HOLDER_MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "holder must be at most " + HOLDER_MAX_LENGTH + " characters, was " + holder.length());
        }
        if (permits < 1 || (kind != LockKind.PERMIT && permits != 1)) {
            throw new IllegalArgumentException(
                    "permits must be 1 for a lock and at least 1 for a permit, was " + permits + " for " + kind);
        }
    }

    /**
     * A request for a lock (not a permit).
     *
     * @param name the validated lock name
     * @param ownerId 32 lowercase hex characters, unique to this acquisition
     * @param kind what the caller asked for; not {@link LockKind#PERMIT}
     * @param leaseTime how long the grant lives without renewal
     * @throws NullPointerException if a component is null
     * @throws IllegalArgumentException if {@code kind} is {@link LockKind#PERMIT}, which needs a count
     */
    public LockRequest(String name, String ownerId, LockKind kind, Duration leaseTime) {
        this(name, ownerId, kind, leaseTime, 1);
    }

    /**
     * A request for callers that know only the mode: exclusive is a {@link LockKind#MUTEX}, shared a
     * {@link LockKind#READ}.
     *
     * @param name the validated lock name
     * @param ownerId 32 lowercase hex characters, unique to this acquisition
     * @param mode exclusive or shared
     * @param leaseTime how long the grant lives without renewal
     * @throws NullPointerException if a component is null
     */
    public LockRequest(String name, String ownerId, LockMode mode, Duration leaseTime) {
        this(name, ownerId, kindOf(mode), leaseTime, 1);
    }

    private static LockKind kindOf(LockMode mode) {
        return switch (Objects.requireNonNull(mode, "mode")) {
            case EXCLUSIVE -> LockKind.MUTEX;
            case SHARED -> LockKind.READ;
        };
    }

    /**
     * Exclusive or shared, as the kind says.
     *
     * @return {@code kind().mode()}
     */
    public LockMode mode() {
        return kind.mode();
    }
}
