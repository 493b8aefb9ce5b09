package dev.baton.redis;

import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockBackendProvider;
import io.lettuce.core.RedisURI;
import io.lettuce.core.internal.HostAndPort;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Serves {@code redis://}, {@code rediss://} (TLS), {@code redis-sentinel://}, {@code
 * redis-cluster://}, {@code rediss-cluster://} (TLS) and {@code redlock://} URIs.
 *
 * <pre>
 * redis://[[user:]password@]host[:port][/database][?prefix=baton:&amp;waitReplicas=0]
 * rediss://...                                         (TLS)
 * redis-sentinel://[[user:]password@]host[:port][,host2[:port2]][/database][?prefix=baton:&amp;waitReplicas=0]#masterName
 * redis-cluster://[[user:]password@]host1:port1[,host2:port2...][/]
 *          [?prefix=baton:&amp;waitReplicas=0&amp;topologyRefresh=30s&amp;natMap=10.0.0.5:7000&gt;gw:17000,...]
 * rediss-cluster://...                                 (TLS)
 * redlock://[[user:]password@]host1:port[/db],host2:port[/db],host3:port[/db]
 *          [?drift=2ms&amp;driftFactor=0.01&amp;nodeTimeout=200ms&amp;tls=true&amp;prefix=baton:]
 * </pre>
 *
 * {@code waitReplicas=N} (single server, Sentinel and Cluster): a grant, and a renewal, counts only
 * once N replicas acknowledged it ({@code WAIT}); see {@link RedisLockBackend}. On Sentinel and
 * Cluster the default, when it is absent, is one replica whenever the master (on a Cluster: the
 * master of the lock's slot) has one connected ({@link
 * RedisReplicaWait#AUTO}); {@code waitReplicas=0} turns the wait off. On a single server the default
 * is 0.
 *
 * <p>Backends connect lazily: creating one never blocks. It fails at once with {@link
 * LockConfigurationException} when Lettuce cannot run on the class path's Netty (Lettuce 7 on Netty
 * 4.1), naming both versions and the fix.
 */
public final class RedisLockBackendProvider implements LockBackendProvider {
    /** How often a cluster client re-reads the topology when nothing triggered a refresh earlier. */
    static final Duration DEFAULT_TOPOLOGY_REFRESH = Duration.ofSeconds(30);

    @Override
    public Set<String> schemes() {
        return Set.of("redis", "rediss", "redis-sentinel", "redis-cluster", "rediss-cluster", "redlock");
    }

    @Override
    public LockBackend create(String uri, LockOptions options) {
        if (uri == null || options == null) {
            throw new LockConfigurationException("Baton Redis: the URI and the options must not be null");
        }
        RedisUris.Parsed parsed = RedisUris.split(uri);
        NettyLine.require("Baton.connect(" + RedisUris.redact(uri) + ")");
        // The URI's fair=false is read by the core into the options (as is clientName).
        boolean fair = options.fair();
        if (parsed.scheme().equals("redlock")) {
            if (parsed.params().containsKey("waitreplicas")) {
                throw RedisUris.invalid(uri, Redlock.NO_WAIT_REPLICAS);
            }
            Redlock.Builder builder = Redlock.builder()
                    .keyPrefix(parsed.prefix())
                    .options(fair ? options : options.toBuilder().fair(false).build());
            boolean tls = Boolean.parseBoolean(parsed.params().getOrDefault("tls", "false"));
            RedisUris.redlockNodes(uri, parsed.lettuceUri(), tls).forEach(builder::node);
            if (parsed.params().containsKey("drift")) {
                builder.driftFixed(
                        RedisUris.duration(uri, "drift", parsed.params().get("drift")));
            }
            if (parsed.params().containsKey("driftfactor")) {
                try {
                    builder.driftFactor(Double.parseDouble(parsed.params().get("driftfactor")));
                } catch (NumberFormatException e) {
                    throw RedisUris.invalid(uri, "driftFactor must be a number such as 0.01");
                }
            }
            if (parsed.params().containsKey("nodetimeout")) {
                builder.nodeTimeout(
                        RedisUris.duration(uri, "nodeTimeout", parsed.params().get("nodetimeout")));
            }
            return builder.buildBackend();
        }
        boolean cluster = parsed.scheme().endsWith("-cluster");
        for (String redlockOnly : RedisUris.REDLOCK_PARAMS) {
            if (parsed.params().containsKey(redlockOnly)) {
                throw RedisUris.invalid(
                        uri,
                        "'" + redlockOnly + "' applies to redlock:// URIs only (use "
                                + (cluster ? "rediss-cluster://" : "rediss://") + " for TLS)");
            }
        }
        Duration timeout = options.operationTimeout();
        if (cluster) {
            // Replicated like Sentinel: by default a grant waits for a replica whenever its slot's
            // master has one connected (RedisReplicaWait.AUTO).
            int waitReplicas = RedisUris.waitReplicas(uri, parsed.params(), RedisReplicaWait.AUTO);
            return cluster(uri, parsed, timeout, waitReplicas, fair, options.pollMaxDelay());
        }
        for (String clusterOnly : RedisUris.CLUSTER_PARAMS) {
            if (parsed.params().containsKey(clusterOnly)) {
                throw RedisUris.invalid(uri, "'" + clusterOnly + "' applies to redis-cluster:// URIs only");
            }
        }
        RedisUris.requireKnownLettuceParams(uri, parsed.scheme(), parsed.lettuceUri());
        // Replicated Redis is safe by default: on Sentinel a grant waits for a replica whenever the
        // master has one connected (RedisReplicaWait.AUTO); a single server waits only when asked.
        boolean sentinel = parsed.scheme().endsWith("-sentinel");
        int waitReplicas = RedisUris.waitReplicas(uri, parsed.params(), sentinel ? RedisReplicaWait.AUTO : 0);
        return new RedisLockBackend(
                parsed.scheme(),
                RedisUris.lettuce(uri, parsed.lettuceUri()),
                parsed.prefix(),
                timeout,
                waitReplicas,
                fair,
                options.pollMaxDelay());
    }

    private static LockBackend cluster(
            String uri,
            RedisUris.Parsed parsed,
            Duration timeout,
            int waitReplicas,
            boolean fair,
            Duration pollMaxDelay) {
        List<RedisURI> seeds =
                RedisUris.clusterSeeds(uri, parsed.lettuceUri(), parsed.scheme().equals("rediss-cluster"));
        Map<HostAndPort, HostAndPort> natMap =
                RedisUris.natMap(uri, parsed.params().get("natmap"));
        Duration refresh = DEFAULT_TOPOLOGY_REFRESH;
        if (parsed.params().containsKey("topologyrefresh")) {
            refresh = RedisUris.duration(uri, "topologyRefresh", parsed.params().get("topologyrefresh"));
            if (refresh.isZero()) {
                throw RedisUris.invalid(uri, "topologyRefresh must be positive, such as 30s");
            }
        }
        String prefix = parsed.prefix();
        Duration period = refresh;
        return new RedisLockBackend(
                parsed.scheme(),
                prefix,
                timeout,
                RedisResources.create(natMap),
                resources -> RedisNode.cluster(seeds, resources, timeout, period),
                waitReplicas,
                fair,
                pollMaxDelay);
    }
}
