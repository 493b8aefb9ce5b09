package dev.baton.spi;

import dev.baton.LockMode;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What a backend returns when it grants a lock. Immutable; made with {@link #of} (or {@link
 * #builder} where no request is at hand) and changed with the {@code with} methods, so that a field
 * can be added later without breaking a backend.
 */
public final class Grant {
    private final String name;
    private final String ownerId;
    private final LockMode mode;
    private final long fencingToken;
    private final Instant expiresAt;
    private final Object backendState;
    private final Duration validity;

    private Grant(Builder builder) {
        this.name = Objects.requireNonNull(builder.name, "name");
        this.ownerId = Objects.requireNonNull(builder.ownerId, "ownerId");
        this.mode = Objects.requireNonNull(builder.mode, "mode");
        this.fencingToken = builder.fencingToken;
        this.expiresAt = Objects.requireNonNull(builder.expiresAt, "expiresAt");
        this.backendState = builder.backendState;
        this.validity = builder.validity;
    }

    /**
     * The grant of {@code request}: its name, owner id and mode, valid for the full lease time.
     *
     * @param request the request granted
     * @param fencingToken strictly increasing per lock name across grants to new owners
     * @param expiresAt the expiry as computed by the backend's clock (informational for the core)
     * @return the grant, without backend state
     * @throws NullPointerException if {@code request} or {@code expiresAt} is null
     */
    public static Grant of(LockRequest request, long fencingToken, Instant expiresAt) {
        return builder(request.name(), request.ownerId(), request.mode())
                .fencingToken(fencingToken)
                .expiresAt(expiresAt)
                .build();
    }

    /**
     * A builder for a grant made without its request at hand (read back from the store, say).
     *
     * @param name the lock name
     * @param ownerId the owner id of the request that was granted
     * @param mode the mode granted
     * @return a builder with token 0, expiry at the epoch, no state and the full validity
     */
    public static Builder builder(String name, String ownerId, LockMode mode) {
        return new Builder(name, ownerId, mode);
    }

    /**
     * The lock name.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * The owner id of the request that was granted.
     *
     * @return 32 lowercase hex characters
     */
    public String ownerId() {
        return ownerId;
    }

    /**
     * The mode granted.
     *
     * @return exclusive or shared
     */
    public LockMode mode() {
        return mode;
    }

    /**
     * The grant's fencing token.
     *
     * @return strictly increasing per lock name across grants to new owners
     */
    public long fencingToken() {
        return fencingToken;
    }

    /**
     * The expiry as computed by the backend's clock; informational for the core.
     *
     * @return the backend's expiry
     */
    public Instant expiresAt() {
        return expiresAt;
    }

    /**
     * Anything the backend needs to renew or release this grant (a node path, a pinned connection).
     *
     * @return the state, or {@code null} when the backend needs none
     */
    public Object backendState() {
        return backendState;
    }

    /**
     * How long the core may treat the grant as held, counted from when it called the backend
     * (tryAcquire, an attempt in line, or renew), when that is shorter than the lease time: Redlock
     * subtracts the time spent and the clock drift, a lock handed over to a queued waiter subtracts
     * the time since the hand-over, ZooKeeper bounds it by its session.
     *
     * @return the shorter validity, or {@code null} for the full lease time
     */
    public Duration validity() {
        return validity;
    }

    /**
     * This grant with a new expiry, as returned by a renewal (valid for the full lease time).
     *
     * @param newExpiry the expiry the backend computed for the renewal
     * @return a copy with {@code newExpiry} and no shortened validity; owner, token and state kept
     */
    public Grant withExpiresAt(Instant newExpiry) {
        return toBuilder().expiresAt(newExpiry).validity(null).build();
    }

    /**
     * This grant, valid for {@code newValidity} from the call that returned it.
     *
     * @param newValidity how long the core may treat the grant as held, counted from when it called
     *     the backend; {@code null} for the full lease time
     * @return a copy that differs only in its validity
     */
    public Grant withValidity(Duration newValidity) {
        return toBuilder().validity(newValidity).build();
    }

    /**
     * This grant with the state the backend needs to renew or release it.
     *
     * @param state a node path, a pinned connection; {@code null} for none
     * @return a copy that differs only in its state
     */
    public Grant withBackendState(Object state) {
        return toBuilder().backendState(state).build();
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

    private Builder toBuilder() {
        return new Builder(name, ownerId, mode)
                .fencingToken(fencingToken)
                .expiresAt(expiresAt)
                .backendState(backendState)
                .validity(validity);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Grant that
                && name.equals(that.name)
                && ownerId.equals(that.ownerId)
                && mode == that.mode
                && fencingToken == that.fencingToken
                && expiresAt.equals(that.expiresAt)
                && Objects.equals(backendState, that.backendState)
                && Objects.equals(validity, that.validity);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, ownerId, mode, fencingToken, expiresAt, backendState, validity);
    }

    @Override
    public String toString() {
        return "Grant[" + name + ", owner " + ownerId + ", " + mode + ", token " + fencingToken + ", expires "
                + expiresAt + (validity == null ? "" : ", valid for " + validity) + "]";
    }

    /** Builds a {@link Grant}; see {@link Grant#builder}. */
    public static final class Builder {
        private final String name;
        private final String ownerId;
        private final LockMode mode;
        private long fencingToken;
        private Instant expiresAt = Instant.EPOCH;
        private Object backendState;
        private Duration validity;

        private Builder(String name, String ownerId, LockMode mode) {
            this.name = name;
            this.ownerId = ownerId;
            this.mode = mode;
        }

        /**
         * The fencing token.
         *
         * @param token strictly increasing per lock name across grants to new owners
         * @return this builder
         */
        public Builder fencingToken(long token) {
            this.fencingToken = token;
            return this;
        }

        /**
         * The backend's expiry.
         *
         * @param expiry as computed by the backend's clock
         * @return this builder
         */
        public Builder expiresAt(Instant expiry) {
            this.expiresAt = expiry;
            return this;
        }

        /**
         * The backend's state for renewing or releasing the grant.
         *
         * @param state a node path, a pinned connection; {@code null} for none
         * @return this builder
         */
        public Builder backendState(Object state) {
            this.backendState = state;
            return this;
        }

        /**
         * A validity shorter than the lease time ({@link Grant#validity()}).
         *
         * @param shorter the validity, or {@code null} for the full lease time
         * @return this builder
         */
        public Builder validity(Duration shorter) {
            this.validity = shorter;
            return this;
        }

        /**
         * The grant.
         *
         * @return a new grant
         * @throws NullPointerException if the name, owner id, mode or expiry is null
         */
        public Grant build() {
            return new Grant(this);
        }
    }
}
