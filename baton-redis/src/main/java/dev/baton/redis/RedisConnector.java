package dev.baton.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How {@link RedisNode} opens its two connections to one kind of deployment (a single server or a
 * Sentinel's master, or a Redis Cluster), and the Lettuce client they come from.
 */
interface RedisConnector {
    /** A command connection and the commands it offers (plain and cluster ones differ in type only). */
    record Commands(
            StatefulConnection<String, String> connection,
            RedisScriptingAsyncCommands<String, String> async,
            BaseRedisAsyncCommands<String, String> base) {}

    /** host:port, the Sentinel master or the cluster's seeds, for messages. */
    String address();

    CompletableFuture<Commands> connect();

    CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub();

    AbstractRedisClient client();

    static RedisConnector standalone(
            RedisURI uri, ClientResources resources, Duration operationTimeout, boolean failFastWhenDisconnected) {
        uri.setTimeout(operationTimeout);
        RedisClient client = RedisClient.create(resources);
        client.setOptions(ClientOptions.builder()
                .socketOptions(socketOptions(operationTimeout))
                .timeoutOptions(TimeoutOptions.enabled(operationTimeout))
                .disconnectedBehavior(
                        failFastWhenDisconnected
                                ? ClientOptions.DisconnectedBehavior.REJECT_COMMANDS
                                : ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .build());
        String address = describe(uri);
        return new RedisConnector() {
            @Override
            public String address() {
                return address;
            }

            @Override
            public CompletableFuture<Commands> connect() {
                return AuthDiagnosis.explained(
                                client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture(), uri, operationTimeout)
                        .thenApply(conn -> new Commands(conn, conn.async(), conn.async()));
            }

            @Override
            public CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
                return AuthDiagnosis.explained(
                        client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture(), uri, operationTimeout);
            }

            @Override
            public AbstractRedisClient client() {
                return client;
            }
        };
    }

    /**
     * A Redis Cluster found through {@code seeds}. The topology is read from the seeds at the first
     * connect, re-read every {@code topologyRefresh} and at once (at most once a second) when a
     * command is redirected (MOVED/ASK) or a node connection keeps failing, so the client follows
     * resharding and failovers.
     */
    static RedisConnector cluster(
            List<RedisURI> seeds, ClientResources resources, Duration operationTimeout, Duration topologyRefresh) {
        for (RedisURI seed : seeds) {
            seed.setTimeout(operationTimeout);
        }
        RedisClusterClient client = RedisClusterClient.create(resources, seeds);
        client.setOptions(ClusterClientOptions.builder()
                .socketOptions(socketOptions(operationTimeout))
                .timeoutOptions(TimeoutOptions.enabled(operationTimeout))
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(topologyRefresh)
                        .enableAllAdaptiveRefreshTriggers()
                        // Lettuce's default waits 30 s between adaptive refreshes; a failover should
                        // be followed well within one lease time.
                        .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                        .refreshTriggersReconnectAttempts(3)
                        .build())
                .build());
        String address = "seeds "
                + String.join(
                        ",",
                        seeds.stream().map(s -> s.getHost() + ":" + s.getPort()).toList());
        return new RedisConnector() {
            // Lettuce connects asynchronously only once it knows the topology; guarded by `connecting`.
            private CompletableFuture<Void> topology;

            @Override
            public String address() {
                return address;
            }

            private CompletableFuture<Void> topology() {
                if (topology == null || topology.isCompletedExceptionally()) {
                    // A seed's refused password can surface as a premature close: ask the first seed.
                    topology = AuthDiagnosis.explained(
                            client.refreshPartitionsAsync().toCompletableFuture(), seeds.get(0), operationTimeout);
                }
                return topology;
            }

            @Override
            public CompletableFuture<Commands> connect() {
                return topology()
                        .thenCompose(ready -> client.connectAsync(StringCodec.UTF8))
                        .thenApply(conn -> new Commands(conn, conn.async(), conn.async()));
            }

            @Override
            public CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
                return topology()
                        .thenCompose(ready -> client.connectPubSubAsync(StringCodec.UTF8))
                        .thenApply(conn -> conn);
            }

            @Override
            public AbstractRedisClient client() {
                return client;
            }
        };
    }

    private static SocketOptions socketOptions(Duration operationTimeout) {
        return SocketOptions.builder()
                .connectTimeout(operationTimeout)
                .tcpNoDelay(true)
                .keepAlive(true)
                .build();
    }

    static String describe(RedisURI uri) {
        if (!uri.getSentinels().isEmpty()) {
            RedisURI first = uri.getSentinels().get(0);
            return "master '" + uri.getSentinelMasterId() + "' via Sentinel " + first.getHost() + ":" + first.getPort();
        }
        return uri.getHost() + ":" + uri.getPort();
    }
}
