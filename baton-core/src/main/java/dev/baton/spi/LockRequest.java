package dev.baton.spi;

import dev.baton.LockKind;
import dev.baton.LockMode;
import java.time.Duration;
import java.util.Objects;

/**
 * One attempt to take a lock, as the core hands it to a backend. Immutable; made by the core (and by
 * tests and tools with {@link #builder}), so that a field can be added later without breaking a
 * backend.
 */
public final class LockRequest {
    /** The longest holder description the core sends. */
    public static final int HOLDER_MAX_LENGTH = 120;

    private final String name;
    private final String ownerId;
    private final LockKind kind;
    private final Duration leaseTime;
    private final int permits;
    private final String holder;

    private LockRequest(Builder builder) {
        this.name = Objects.requireNonNull(builder.name, "name");
        this.ownerId = Objects.requireNonNull(builder.ownerId, "ownerId");
        this.kind = Objects.requireNonNull(builder.kind, "kind");
        this.leaseTime = Objects.requireNonNull(builder.leaseTime, "leaseTime");
        this.holder = Objects.requireNonNull(builder.holder, "holder");
        this.permits = builder.permits;
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
     * A builder of a request.
     *
     * @param name the validated lock name
     * @param ownerId 32 lowercase hex characters, unique to this acquisition
     * @param kind what the caller asked for
     * @param leaseTime how long the grant lives without renewal
     * @return a builder with 1 permit and no holder description
     */
    public static Builder builder(String name, String ownerId, LockKind kind, Duration leaseTime) {
        return new Builder(name, ownerId, kind, leaseTime);
    }

    /**
     * The validated lock name.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * The owner id: the backend stores it and releases or renews only when it matches.
     *
     * @return 32 lowercase hex characters, unique to this acquisition (across processes too)
     */
    public String ownerId() {
        return ownerId;
    }

    /**
     * What the caller asked for (a plain lock, a read/write lock's side, a permit); backends with one
     * form per mode ignore it and read {@link #mode()}.
     *
     * @return the kind
     */
    public LockKind kind() {
        return kind;
    }

    /**
     * How long the grant lives without renewal, measured by the backend's clock.
     *
     * @return the lease time
     */
    public Duration leaseTime() {
        return leaseTime;
    }

    /**
     * For a {@link LockKind#PERMIT}, the semaphore's number of permits, which the backend stores with
     * the name on first use and refuses to change (a request with another count fails with {@link
     * dev.baton.LockConfigurationException}).
     *
     * @return at least 1; 1 for every other kind
     */
    public int permits() {
        return permits;
    }

    /**
     * Who asks, for operators ({@link dev.baton.Holder#description()}): the client's name if it has
     * one, the host, the process id and the thread. A backend stores it beside the owner id where it
     * can (encoding it as its store requires) and reports it when it lists its locks; it never decides
     * anything by it.
     *
     * @return at most {@link #HOLDER_MAX_LENGTH} characters without control characters; empty when
     *     unknown
     */
    public String holder() {
        return holder;
    }

    /**
     * Exclusive or shared, as the kind says.
     *
     * @return {@code kind().mode()}
     */
    public LockMode mode() {
        return kind.mode();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LockRequest that
                && name.equals(that.name)
                && ownerId.equals(that.ownerId)
                && kind == that.kind
                && leaseTime.equals(that.leaseTime)
                && permits == that.permits
                && holder.equals(that.holder);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, ownerId, kind, leaseTime, permits, holder);
    }

    @Override
    public String toString() {
        return "LockRequest[" + name + ", owner " + ownerId + ", " + kind + ", lease " + leaseTime
                + (kind == LockKind.PERMIT ? ", permits " + permits : "") + "]";
    }

    /** Builds a {@link LockRequest}; see {@link LockRequest#builder}. */
    public static final class Builder {
        private final String name;
        private final String ownerId;
        private final LockKind kind;
        private final Duration leaseTime;
        private int permits = 1;
        private String holder = "";

        private Builder(String name, String ownerId, LockKind kind, Duration leaseTime) {
            this.name = name;
            this.ownerId = ownerId;
            this.kind = kind;
            this.leaseTime = leaseTime;
        }

        /**
         * The semaphore's permit count, for a {@link LockKind#PERMIT}.
         *
         * @param count at least 1
         * @return this builder
         */
        public Builder permits(int count) {
            this.permits = count;
            return this;
        }

        /**
         * Who asks ({@link LockRequest#holder()}).
         *
         * @param description at most {@link #HOLDER_MAX_LENGTH} characters; empty when unknown
         * @return this builder
         */
        public Builder holder(String description) {
            this.holder = description;
            return this;
        }

        /**
         * The request.
         *
         * @return a new request
         * @throws NullPointerException if a component is null
         * @throws IllegalArgumentException if {@code permits} is below 1, or not 1 for a lock, or the
         *     holder description is too long
         */
        public LockRequest build() {
            return new LockRequest(this);
        }
    }
}
