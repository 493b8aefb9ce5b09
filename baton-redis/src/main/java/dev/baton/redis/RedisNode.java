package dev.baton.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Redis deployment as a backend talks to it: a single server, a Sentinel-managed master, or a
 * whole Redis Cluster. It holds one command connection shared by every thread (Lettuce pipelines
 * concurrent commands on it), one pub/sub connection, and runs the scripts. Both connections are
 * opened lazily and reopened after a failed attempt; once open, Lettuce reconnects them by itself
 * (and resubscribes channels).
 *
 * <p>On a cluster the command connection is Lettuce's cluster connection: it routes each script
 * by the slot of its first key (all of a lock's keys share that slot) to the master that owns it,
 * holding one socket per master underneath, and follows MOVED/ASK redirects. The pub/sub
 * connection is one connection to one node of the cluster; a PUBLISH on any master reaches it,
 * because Redis Cluster forwards every PUBLISH to every node.
 */
final class RedisNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisNode.class);

    /** A command connection and the scripting commands it offers (plain and cluster ones differ in type only). */
    private record Commands(
            StatefulConnection<String, String> connection, RedisScriptingAsyncCommands<String, String> async) {}

    /** How to open the two connections of one kind of deployment. */
    private interface Connector {
        String address();

        CompletableFuture<Commands> connect();

        CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub();

        AbstractRedisClient client();
    }

    private final Connector connector;
    private final String address;
    private final ReentrantLock connecting = new ReentrantLock();
    private volatile CompletableFuture<Commands> connection;
    private volatile CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubsub;
    private final ConcurrentHashMap<String, List<Consumer<String>>> channelListeners = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private final boolean cluster;

    /**
     * A single server, or the master a Sentinel names ({@code uri} carries the Sentinels).
     *
     * @param failFastWhenDisconnected reject commands while the connection is down instead of
     *     buffering them until it is back (Redlock counts a down node at once)
     */
    RedisNode(RedisURI uri, ClientResources resources, Duration operationTimeout, boolean failFastWhenDisconnected) {
        this(standalone(uri, resources, operationTimeout, failFastWhenDisconnected));
    }

    private RedisNode(Connector connector) {
        this.connector = connector;
        this.address = connector.address();
        this.cluster = connector.client() instanceof RedisClusterClient;
    }

    /** Whether this is a Redis Cluster: one script call may then only touch keys of one slot. */
    boolean isCluster() {
        return cluster;
    }

    private static Connector standalone(
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
        return new Connector() {
            @Override
            public String address() {
                return address;
            }

            @Override
            public CompletableFuture<Commands> connect() {
                return client.connectAsync(StringCodec.UTF8, uri)
                        .toCompletableFuture()
                        .thenApply(conn -> new Commands(conn, conn.async()));
            }

            @Override
            public CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
                return client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture();
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
    static RedisNode cluster(
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
        return new RedisNode(new Connector() {
            // Lettuce connects asynchronously only once it knows the topology; guarded by `connecting`.
            private CompletableFuture<Void> topology;

            @Override
            public String address() {
                return address;
            }

            private CompletableFuture<Void> topology() {
                if (topology == null || topology.isCompletedExceptionally()) {
                    topology = client.refreshPartitionsAsync().toCompletableFuture();
                }
                return topology;
            }

            @Override
            public CompletableFuture<Commands> connect() {
                return topology()
                        .thenCompose(ready -> client.connectAsync(StringCodec.UTF8))
                        .thenApply(conn -> new Commands(conn, conn.async()));
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
        });
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

    /** host:port, the Sentinel master or the cluster's seeds, for messages. */
    String address() {
        return address;
    }

    /** Runs a script by EVALSHA; loads it with EVAL when the server answers NOSCRIPT. */
    <T> CompletableFuture<T> eval(RedisScripts.Script script, ScriptOutputType type, String[] keys, String... args) {
        CompletableFuture<Commands> current = connection;
        Commands open = null;
        if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
            open = current.join();
        }
        if (open != null) {
            // The common case, without a stage for the connection: one stage less to complete on
            // Lettuce's I/O thread per command.
            return evalOn(open, script, type, keys, args);
        }
        return connection().thenCompose(conn -> evalOn(conn, script, type, keys, args));
    }

    private <T> CompletableFuture<T> evalOn(
            Commands conn, RedisScripts.Script script, ScriptOutputType type, String[] keys, String... args) {
        CompletionStage<T> first = conn.async().evalsha(script.sha(), type, keys, args);
        return first.toCompletableFuture().exceptionallyCompose(e -> {
            Throwable cause = unwrap(e);
            if (cause instanceof RedisNoScriptException
                    || (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"))) {
                log.debug("{}: script {} not cached on the server; loading it", address, script.name());
                return conn.async().<T>eval(script.source(), type, keys, args).toCompletableFuture();
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    private CompletableFuture<Commands> connection() {
        CompletableFuture<Commands> current = connection;
        if (current != null && !current.isCompletedExceptionally()) {
            return current;
        }
        connecting.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("the client is closed"));
            }
            current = connection;
            if (current == null || current.isCompletedExceptionally()) {
                current = started(connector::connect);
                connection = current;
            }
            return current;
        } finally {
            connecting.unlock();
        }
    }

    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubsub() {
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> current = pubsub;
        if (current != null && !current.isCompletedExceptionally()) {
            return current;
        }
        connecting.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("the client is closed"));
            }
            current = pubsub;
            if (current == null || current.isCompletedExceptionally()) {
                current = started(connector::connectPubSub).thenApply(conn -> {
                    conn.addListener(new RedisPubSubAdapter<>() {
                        @Override
                        public void message(String channel, String message) {
                            List<Consumer<String>> listeners = channelListeners.get(channel);
                            if (listeners != null) {
                                for (Consumer<String> listener : listeners) {
                                    listener.accept(message);
                                }
                            }
                        }
                    });
                    return conn;
                });
                pubsub = current;
            }
            return current;
        } finally {
            connecting.unlock();
        }
    }

    /** Registers a local listener for the channel (no I/O). */
    void addChannelListener(String channel, Consumer<String> listener) {
        channelListeners
                .computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>())
                .add(listener);
    }

    void removeChannelListener(String channel, Consumer<String> listener) {
        channelListeners.computeIfPresent(channel, (c, list) -> {
            list.remove(listener);
            return list.isEmpty() ? null : list;
        });
    }

    CompletableFuture<Void> subscribe(String channel) {
        return pubsub().thenCompose(conn -> conn.async().subscribe(channel).toCompletableFuture());
    }

    CompletableFuture<Void> unsubscribe(String channel) {
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> current = pubsub;
        if (current == null || !current.isDone() || current.isCompletedExceptionally()) {
            return CompletableFuture.completedFuture(null);
        }
        return current.thenCompose(conn -> conn.async().unsubscribe(channel).toCompletableFuture());
    }

    /**
     * Starts a connection attempt, turning a synchronous failure into a failed future: Lettuce throws
     * at once when its resources were shut down by a concurrent {@link #close()}, and a caller that
     * waits on the future must see that failure like any other.
     */
    private static <C> CompletableFuture<C> started(Supplier<CompletableFuture<C>> attempt) {
        try {
            return attempt.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    static Throwable unwrap(Throwable e) {
        Throwable cause = e;
        while ((cause instanceof CompletionException || cause instanceof java.util.concurrent.ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    @Override
    public void close() {
        connecting.lock();
        try {
            closed = true;
        } finally {
            connecting.unlock();
        }
        closeQuietly(connection == null ? null : connection.thenApply(Commands::connection));
        closeQuietly(pubsub);
        try {
            connector.client().shutdown(Duration.ZERO, Duration.ofSeconds(2));
        } catch (RuntimeException e) {
            log.debug("{}: shutting down the Redis client failed", address, e);
        }
    }

    private static void closeQuietly(CompletableFuture<? extends io.lettuce.core.api.StatefulConnection<?, ?>> future) {
        if (future == null) {
            return;
        }
        try {
            future.getNow(null);
        } catch (RuntimeException e) {
            return; // never connected
        }
        try {
            if (future.isDone() && !future.isCompletedExceptionally()) {
                future.get(0, TimeUnit.MILLISECONDS).close();
            } else {
                future.cancel(true);
            }
        } catch (Exception e) {
            // closing is best effort
        }
    }
}
