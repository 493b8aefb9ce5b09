package dev.baton;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How locks behave: lease time, automatic renewal, the polling policy used while waiting, fairness,
 * and the bound on every single backend operation. Set per client ({@link Baton#connect(String,
 * LockOptions)}) and overridable per lock ({@link LockClient#lock(String, LockOptions)}).
 *
 * <p>Options are immutable and made by a {@link Builder} ({@link #builder()}, {@link #toBuilder()}).
 * Every duration is validated when it is set on the builder: {@code null}, zero and negative values
 * are rejected at once with a {@link LockConfigurationException} naming the option. Options may be
 * added in later versions without breaking code compiled against this one: there is no public
 * constructor, only the builder.
 */
public final class LockOptions {

    private static final LockOptions DEFAULTS = new Builder().build();

    private final Duration leaseTime;
    private final boolean autoRenew;
    private final Duration operationTimeout;
    private final Duration pollInitialDelay;
    private final Duration pollMaxDelay;
    private final List<LockListener> listeners;
    private final boolean fair;
    private final String clientName;

    private LockOptions(Builder builder) {
        if (builder.pollMaxDelay.compareTo(builder.pollInitialDelay) < 0) {
            throw new LockConfigurationException("LockOptions: pollMaxDelay (" + builder.pollMaxDelay
                    + ") must not be shorter than pollInitialDelay (" + builder.pollInitialDelay
                    + "); raise pollMaxDelay or lower pollInitialDelay");
        }
        this.leaseTime = builder.leaseTime;
        this.autoRenew = builder.autoRenew;
        this.operationTimeout = builder.operationTimeout;
        this.pollInitialDelay = builder.pollInitialDelay;
        this.pollMaxDelay = builder.pollMaxDelay;
        this.listeners = List.copyOf(builder.listeners);
        this.fair = builder.fair;
        this.clientName = builder.clientName;
    }

    /**
     * The defaults: 30 s lease, auto-renew on, 5 s operation timeout, polling from 10 ms to 500 ms, no
     * listeners, fair.
     *
     * @return the shared default options
     */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /**
     * A builder that starts from the {@linkplain #defaults() defaults}.
     *
     * @return a new builder; not thread-safe
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder that starts from these options.
     *
     * @return a new builder holding every value of these options, listeners included
     */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.listeners.addAll(listeners);
        return builder.leaseTime(leaseTime)
                .autoRenew(autoRenew)
                .operationTimeout(operationTimeout)
                .pollInitialDelay(pollInitialDelay)
                .pollMaxDelay(pollMaxDelay)
                .fair(fair)
                .clientName(clientName);
    }

    /**
     * The same options with another lease time.
     *
     * @param leaseTime the new lease time; positive, as for {@link Builder#leaseTime}
     * @return new options that differ from these only in {@code leaseTime}
     * @throws LockConfigurationException if {@code leaseTime} is null, zero or negative
     */
    public LockOptions withLeaseTime(Duration leaseTime) {
        return toBuilder().leaseTime(leaseTime).build();
    }

    /**
     * How long a grant lives on the backend without renewal; after it the lock is free for others
     * even if the holder died. Default 30 s. A backend may bound it: Azure Blob leases last 15 s to 60
     * s, and that backend refuses a lease time outside the range with a {@link
     * LockConfigurationException} naming it (when the client is created, and when a lock with its own
     * options is acquired) rather than round it.
     *
     * <p>A lease is valid ({@link Lease#isValid()}, {@link Leadership#isLeader()}) for at most the
     * lease time after the last request the backend answered, and never longer than the server is
     * bound to keep the grant: where something else frees it sooner, validity is bounded by that too.
     * On ZooKeeper that is the session timeout the server negotiated (it may lower the URI's {@code
     * sessionTimeout} to its {@code maxSessionTimeout}); a longer lease time is accepted there with a
     * warning, and is then renewed within the session timeout, and lost after a pause or without
     * auto-renewal once the session timeout has passed. The docs' lease-validity page says, per
     * backend, what frees a lock and how validity is bounded by it.
     *
     * @return the lease time; positive
     */
    public Duration leaseTime() {
        return leaseTime;
    }

    /**
     * Whether the client renews held leases at a third of {@link #leaseTime()} until they are
     * released. Default {@code true}. Without it a lease simply expires after {@code leaseTime}.
     *
     * @return {@code true} if held leases are renewed
     */
    public boolean autoRenew() {
        return autoRenew;
    }

    /**
     * The bound on one backend round trip (connect, query, script); past it the operation fails with
     * {@link LockUnavailableException}. Default 5 s. The backend takes it from the client's options
     * when it connects; a per-lock override does not change it.
     *
     * @return the operation timeout; positive
     */
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /**
     * The first pause between two attempts of a waiter on a backend that can only be polled. Default
     * 10 ms.
     *
     * @return the first pause; positive, not longer than {@link #pollMaxDelay()}
     */
    public Duration pollInitialDelay() {
        return pollInitialDelay;
    }

    /**
     * The cap of the exponentially growing, jittered pause between attempts. Default 500 ms.
     *
     * @return the cap; positive, not shorter than {@link #pollInitialDelay()}
     */
    public Duration pollMaxDelay() {
        return pollMaxDelay;
    }

    /**
     * Who hears what the client's locks do (acquires, waits, releases, renewals, losses), in the order
     * registered; see {@link LockListener}. Default none. Like {@link #operationTimeout()}, taken from
     * the client's options: a per-lock override does not change them.
     *
     * @return the listeners in the order they are called; immutable
     */
    public List<LockListener> listeners() {
        return listeners;
    }

    /**
     * Whether a waiter on another client comes before an immediate re-acquire by the client that just
     * released (default {@code true}): a release that finds waiters leaves the lock to the
     * longest-waiting one for a short, bounded time. {@code false} lets whoever asks first after a
     * release take the lock (barging): more acquisitions per second for a busy holder, at the risk of
     * starving the other clients' waiters. Backends whose waiters queue in the server (ZooKeeper,
     * etcd, PostgreSQL's lock queue) are fair either way. Taken from the client's options, like {@link
     * #operationTimeout()}; a backend URI's {@code fair=false} turns it off too.
     *
     * @return {@code true} if waiters on other clients come first
     */
    public boolean fair() {
        return fair;
    }

    /**
     * The name this client gives itself in the holder description of every lock it takes, so that an
     * operator listing locks ({@code baton locks}) sees which application holds what; the host, the
     * process id and the thread are recorded beside it. Default: empty (none). A backend URI's {@code
     * clientName=...} parameter sets it too.
     *
     * @return the client's name; empty for none
     */
    public String clientName() {
        return clientName;
    }

    /**
     * Options are equal when every value is equal, listeners compared in order with their own {@code
     * equals}.
     *
     * @param other the object to compare with
     * @return whether {@code other} is options with the same values
     */
    @Override
    public boolean equals(Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof LockOptions that)) {
            return false;
        }
        return autoRenew == that.autoRenew
                && fair == that.fair
                && clientName.equals(that.clientName)
                && leaseTime.equals(that.leaseTime)
                && operationTimeout.equals(that.operationTimeout)
                && pollInitialDelay.equals(that.pollInitialDelay)
                && pollMaxDelay.equals(that.pollMaxDelay)
                && listeners.equals(that.listeners);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                leaseTime, autoRenew, operationTimeout, pollInitialDelay, pollMaxDelay, listeners, fair, clientName);
    }

    @Override
    public String toString() {
        return "LockOptions[leaseTime=" + leaseTime + ", autoRenew=" + autoRenew + ", operationTimeout="
                + operationTimeout + ", pollInitialDelay=" + pollInitialDelay + ", pollMaxDelay=" + pollMaxDelay
                + ", listeners=" + listeners + ", fair=" + fair + ", clientName=" + clientName + "]";
    }

    static void requirePositive(String option, Duration value) {
        if (value == null) {
            throw new LockConfigurationException(
                    "LockOptions: " + option + " must not be null; give a positive duration");
        }
        if (value.isZero() || value.isNegative()) {
            throw new LockConfigurationException(
                    "LockOptions: " + option + " must be positive but was " + value + "; give a positive duration");
        }
    }

    /** Builds {@link LockOptions}; each setter validates its argument immediately. */
    public static final class Builder {
        /** The longest client name: it shares the holder description with host, pid and thread. */
        public static final int CLIENT_NAME_MAX_LENGTH = 40;

        private Duration leaseTime = Duration.ofSeconds(30);
        private boolean autoRenew = true;
        private Duration operationTimeout = Duration.ofSeconds(5);
        private Duration pollInitialDelay = Duration.ofMillis(10);
        private Duration pollMaxDelay = Duration.ofMillis(500);
        private final List<LockListener> listeners = new ArrayList<>();
        private boolean fair = true;
        private String clientName = "";

        private Builder() {}

        /**
         * How long a grant lives on the backend without renewal; default 30 s.
         *
         * @param leaseTime positive; a backend may accept only a range (Azure Blob: 15 s to 60 s)
         * @return this builder
         * @throws LockConfigurationException if {@code leaseTime} is null, zero or negative
         */
        public Builder leaseTime(Duration leaseTime) {
            requirePositive("leaseTime", leaseTime);
            this.leaseTime = leaseTime;
            return this;
        }

        /**
         * Whether held leases are renewed at a third of the lease time until released; default
         * {@code true}.
         *
         * @param autoRenew {@code false} to let every lease expire after its lease time
         * @return this builder
         */
        public Builder autoRenew(boolean autoRenew) {
            this.autoRenew = autoRenew;
            return this;
        }

        /**
         * The bound on one backend round trip; default 5 s.
         *
         * @param operationTimeout positive; past it an operation fails with {@link
         *     LockUnavailableException}
         * @return this builder
         * @throws LockConfigurationException if {@code operationTimeout} is null, zero or negative
         */
        public Builder operationTimeout(Duration operationTimeout) {
            requirePositive("operationTimeout", operationTimeout);
            this.operationTimeout = operationTimeout;
            return this;
        }

        /**
         * The first pause between two attempts of a waiter on a backend that can only be polled;
         * default 10 ms.
         *
         * @param pollInitialDelay positive, and not longer than the {@link #pollMaxDelay} (checked
         *     by {@link #build()})
         * @return this builder
         * @throws LockConfigurationException if {@code pollInitialDelay} is null, zero or negative
         */
        public Builder pollInitialDelay(Duration pollInitialDelay) {
            requirePositive("pollInitialDelay", pollInitialDelay);
            this.pollInitialDelay = pollInitialDelay;
            return this;
        }

        /**
         * The cap of the exponentially growing, jittered pause between attempts; default 500 ms.
         *
         * @param pollMaxDelay positive, and not shorter than the {@link #pollInitialDelay} (checked
         *     by {@link #build()})
         * @return this builder
         * @throws LockConfigurationException if {@code pollMaxDelay} is null, zero or negative
         */
        public Builder pollMaxDelay(Duration pollMaxDelay) {
            requirePositive("pollMaxDelay", pollMaxDelay);
            this.pollMaxDelay = pollMaxDelay;
            return this;
        }

        /**
         * Whether a waiter on another client comes before an immediate re-acquire by the client that
         * just released; default {@code true}. See {@link LockOptions#fair()}.
         *
         * @param fair {@code false} to let the releasing client take the lock again at once
         *     (barging: more throughput for a busy holder, possible starvation of other clients)
         * @return this builder
         */
        public Builder fair(boolean fair) {
            this.fair = fair;
            return this;
        }

        /**
         * The name this client records in its holder descriptions; default none. See {@link
         * LockOptions#clientName()}.
         *
         * @param clientName at most {@value #CLIENT_NAME_MAX_LENGTH} characters without control
         *     characters; empty for none
         * @return this builder
         * @throws LockConfigurationException if {@code clientName} is null, too long or holds a
         *     control character
         */
        public Builder clientName(String clientName) {
            if (clientName == null) {
                throw new LockConfigurationException("LockOptions: clientName must not be null; use \"\" for none");
            }
            if (clientName.length() > CLIENT_NAME_MAX_LENGTH
                    || clientName.chars().anyMatch(Character::isISOControl)) {
                throw new LockConfigurationException(
                        "LockOptions: clientName '" + clientName.replaceAll("\\p{Cntrl}", "?")
                                + "' must be at most " + CLIENT_NAME_MAX_LENGTH
                                + " characters without control characters; give a short application name");
            }
            this.clientName = clientName;
            return this;
        }

        /**
         * Adds a listener to the client built with these options; may be called several times (each
         * listener is called, in this order). See {@link LockListener} for what it hears and on which
         * thread.
         *
         * @param listener the listener; it must not block, since it runs on the client's threads
         * @return this builder
         * @throws LockConfigurationException if {@code listener} is null
         */
        public Builder listener(LockListener listener) {
            if (listener == null) {
                throw new LockConfigurationException("LockOptions: listener must not be null");
            }
            listeners.add(listener);
            return this;
        }

        /**
         * The options.
         *
         * @return new, immutable options; later changes to this builder do not affect them
         * @throws LockConfigurationException if {@code pollMaxDelay} is shorter than {@code
         *     pollInitialDelay}
         */
        public LockOptions build() {
            return new LockOptions(this);
        }

        @Override
        public String toString() {
            return Objects.toString(build());
        }
    }
}
