package dev.baton.redis;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds a Redlock client over N independent Redis masters (see {@link RedlockBackend} for the
 * algorithm and its guarantee).
 *
 * <pre>{@code
 * LockClient client = Redlock.builder()
 *         .node("redis://10.0.0.1:6379").node("redis://10.0.0.2:6379").node("redis://10.0.0.3:6379")
 *         .driftFactor(0.01).driftFixed(Duration.ofMillis(2))
 *         .options(LockOptions.builder().leaseTime(Duration.ofSeconds(10)).build())
 *         .build();
 * }</pre>
 *
 * <p>Failure behaviour: {@link Builder#build()} throws {@link LockConfigurationException} for fewer
 * than three masters, a bad URI or a negative drift; it does not connect (connections open on first
 * use).
 */
public final class Redlock {
    /** Why {@code waitReplicas} does not apply to Redlock. */
    static final String NO_WAIT_REPLICAS = "waitReplicas does not apply to Redlock, whose grants are safe because a"
            + " majority of independent masters holds them, not because replicas do; drop it (give each master"
            + " persistence or a delayed restart instead), or use redis-sentinel://...?waitReplicas=1";

    private Redlock() {}

    /**
     * Starts a Redlock client; add at least three masters with {@link Builder#node(String)}.
     *
     * @return a builder with no masters, {@link LockOptions#defaults()}, key prefix {@code baton:},
     *     drift 1% plus 2 ms and a 200 ms node timeout
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Collects masters and settings; not thread-safe. */
    public static final class Builder {
        private final List<RedisURI> nodes = new ArrayList<>();
        private LockOptions options = LockOptions.defaults();
        private String keyPrefix = RedisKeys.DEFAULT_PREFIX;
        private double driftFactor = 0.01;
        private Duration driftFixed = Duration.ofMillis(2);
        private Duration nodeTimeout = Duration.ofMillis(200);

        private Builder() {}

        /**
         * Adds a master by {@code redis://} or {@code rediss://} URI.
         *
         * @param uri the master's URI, such as {@code redis://host:6379}; masters must be
         *     independent (not replicas of each other)
         * @return this builder
         * @throws LockConfigurationException if the URI is malformed, has another scheme, or sets
         *     {@code waitReplicas}
         */
        public Builder node(String uri) {
            RedisUris.Parsed parsed = RedisUris.split(uri);
            if (!parsed.scheme().equals("redis") && !parsed.scheme().equals("rediss")) {
                throw RedisUris.invalid(uri, "a Redlock master is given as redis:// or rediss://");
            }
            if (parsed.params().containsKey("waitreplicas")) {
                throw RedisUris.invalid(uri, NO_WAIT_REPLICAS);
            }
            return node(RedisUris.lettuce(uri, parsed.lettuceUri()));
        }

        Builder node(RedisURI uri) {
            nodes.add(uri);
            return this;
        }

        /**
         * The client's options (default {@link LockOptions#defaults()}).
         *
         * @param options lease time, renewal, operation timeout and listeners of the client; {@code
         *     fair(false)} turns Redlock's waiter tickets off (barging, see {@link RedlockTickets}), and
         *     {@code pollMaxDelay} bounds how long a dead waiter's ticket holds the line
         * @return this builder
         * @throws LockConfigurationException if {@code options} is null
         */
        public Builder options(LockOptions options) {
            if (options == null) {
                throw new LockConfigurationException("Redlock: options must not be null; use LockOptions.defaults()");
            }
            this.options = options;
            return this;
        }

        /**
         * Prefix of every key and channel; default {@code baton:}.
         *
         * @param keyPrefix the prefix; every client of the same locks must use the same one
         * @return this builder
         * @throws LockConfigurationException if the prefix is null or contains a brace
         */
        public Builder keyPrefix(String keyPrefix) {
            if (keyPrefix == null || keyPrefix.contains("{") || keyPrefix.contains("}")) {
                throw new LockConfigurationException(
                        "Redlock: the key prefix must be non-null and contain no braces, but was " + keyPrefix);
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * Clock drift allowed per millisecond of lease; default 0.01 (1%). A grant's validity is
         * shortened by {@code leaseTime * driftFactor + driftFixed} on top of the time spent
         * acquiring it.
         *
         * @param driftFactor the fraction of the lease time allowed for drift, in {@code [0, 0.5)}
         * @return this builder
         * @throws LockConfigurationException if the factor is outside {@code [0, 0.5)}
         */
        public Builder driftFactor(double driftFactor) {
            if (!(driftFactor >= 0 && driftFactor < 0.5)) {
                throw new LockConfigurationException("Redlock: driftFactor must be in [0, 0.5) but was " + driftFactor
                        + "; the usual value is 0.01");
            }
            this.driftFactor = driftFactor;
            return this;
        }

        /**
         * Fixed part of the drift allowance; default 2 ms.
         *
         * @param driftFixed the allowance added to every grant's drift; zero or positive
         * @return this builder
         * @throws LockConfigurationException if it is null or negative
         */
        public Builder driftFixed(Duration driftFixed) {
            if (driftFixed == null || driftFixed.isNegative()) {
                throw new LockConfigurationException(
                        "Redlock: driftFixed must be zero or positive but was " + driftFixed);
            }
            this.driftFixed = driftFixed;
            return this;
        }

        /**
         * Bound on one master's answer during acquire and renew; default 200 ms, and never more than
         * a tenth of the lease time.
         *
         * @param nodeTimeout the bound on one master's answer; positive
         * @return this builder
         * @throws LockConfigurationException if it is null, zero or negative
         */
        public Builder nodeTimeout(Duration nodeTimeout) {
            if (nodeTimeout == null || nodeTimeout.isZero() || nodeTimeout.isNegative()) {
                throw new LockConfigurationException("Redlock: nodeTimeout must be positive but was " + nodeTimeout);
            }
            this.nodeTimeout = nodeTimeout;
            return this;
        }

        /**
         * The backend alone, for {@link Baton#open}. Does not connect.
         *
         * @return a new backend that the caller (or the client it is given to) closes
         * @throws LockConfigurationException if fewer than three masters were added, or Lettuce cannot
         *     run on the class path's Netty (Lettuce 7 on Netty 4.1)
         */
        public RedlockBackend buildBackend() {
            if (nodes.size() < 3) {
                throw new LockConfigurationException("Redlock needs at least 3 independent masters (5 is usual), but "
                        + nodes.size() + " were given; add masters with node(uri)");
            }
            NettyLine.require("Redlock");
            return new RedlockBackend(
                    nodes,
                    keyPrefix,
                    options.operationTimeout(),
                    nodeTimeout,
                    driftFactor,
                    driftFixed,
                    options.fair(),
                    options.pollMaxDelay());
        }

        /**
         * A client over the masters. Does not connect: connections open on first use.
         *
         * @return a new client that the caller closes
         * @throws LockConfigurationException as {@link #buildBackend()}
         */
        public LockClient build() {
            return Baton.open(buildBackend(), options);
        }
    }
}
