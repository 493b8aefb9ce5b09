package dev.baton.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisKeyAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.resource.ClientResources;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Redis deployment as a backend talks to it: a single server, a Sentinel-managed master, or a
 * whole Redis Cluster. It holds one command connection shared by every thread (Lettuce pipelines
 * concurrent commands on it), one pub/sub connection ({@link RedisChannels}), and runs the scripts. Both connections are
 * opened lazily and reopened after a failed attempt; once open, Lettuce reconnects them by itself
 * (and resubscribes channels).
 *
 * <p>On a cluster the command connection is Lettuce's cluster connection: it routes each script
 * by the slot of its first key (all of a lock's keys share that slot) to the master that owns it,
 * holding one socket per master underneath, and follows MOVED/ASK redirects. A write that
 * {@code WAIT} must vouch for goes instead on the node connection to its slot's master ({@link
 * #routeFor}). The pub/sub
 * connection is one connection to one node of the cluster; a PUBLISH on any master reaches it,
 * because Redis Cluster forwards every PUBLISH to every node.
 */
final class RedisNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisNode.class);

    private final RedisConnector connector;
    private final String address;
    private final LazyConnection<RedisConnector.Commands> connection;
    private final RedisChannels channels;
    private final boolean cluster;
    private final AtomicLong commandConnectionChanges = new AtomicLong();
    /** Per node connection {@link #routeFor} handed out (one per master at most), its changes. */
    private final ConcurrentHashMap<Object, AtomicLong> nodeConnectionChanges = new ConcurrentHashMap<>();

    /**
     * A single server, or the master a Sentinel names ({@code uri} carries the Sentinels).
     *
     * @param failFastWhenDisconnected reject commands while the connection is down instead of
     *     buffering them until it is back (Redlock counts a down node at once)
     */
    RedisNode(RedisURI uri, ClientResources resources, Duration operationTimeout, boolean failFastWhenDisconnected) {
        this(RedisConnector.standalone(uri, resources, operationTimeout, failFastWhenDisconnected));
    }

    private RedisNode(RedisConnector connector) {
        this.connector = connector;
        this.address = connector.address();
        this.cluster = connector.client() instanceof RedisClusterClient;
        this.channels = new RedisChannels(connector);
        this.connection = new LazyConnection<>(connector::connect);
        connector.client().addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress remote) {
                countIfCommandConnection(handler);
            }

            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
                countIfCommandConnection(handler);
            }
        });
    }

    /**
     * Counts the open command connection going down or coming back up (Lettuce reconnects it under
     * the same handler). Events of the first connect come before the connection future completes,
     * so they are not counted.
     */
    private void countIfCommandConnection(RedisChannelHandler<?, ?> handler) {
        // On a Cluster: a node connection that routeFor handed out (the topology refresh's own
        // short-lived connections and the other masters' connections do not count).
        AtomicLong nodeChanges = nodeConnectionChanges.get(handler);
        if (nodeChanges != null) {
            nodeChanges.incrementAndGet();
            return;
        }
        RedisConnector.Commands open = connection.openNow();
        if (open != null && open.connection() == handler) {
            commandConnectionChanges.incrementAndGet();
        }
    }

    /**
     * How often the connection {@code via} ({@link #routeFor}; {@code null}: the command connection)
     * went down or came back up so far. Equal values before a write and after a {@link
     * #waitForReplicas WAIT} mean both ran on one server-side connection.
     */
    long connectionChanges(RedisConnector.Commands via) {
        if (via == null) {
            return commandConnectionChanges.get();
        }
        AtomicLong changes = nodeConnectionChanges.get(via.connection());
        return changes == null ? 0 : changes.get();
    }

    /**
     * The connection a write of {@code key} and its {@link #waitForReplicas WAIT} must share: on a
     * Cluster, the node connection to the master that owns the key's slot as the client's topology
     * says; elsewhere {@code null}, meaning the shared command connection. A write sent there does not
     * follow MOVED/ASK redirects by itself: see {@link #eval(RedisConnector.Commands,
     * RedisScripts.Script, ScriptOutputType, String[], String...)}.
     */
    CompletableFuture<RedisConnector.Commands> routeFor(String key) {
        if (!cluster) {
            return CompletableFuture.completedFuture(null);
        }
        return connection.get().thenCompose(conn -> {
            StatefulRedisClusterConnection<String, String> routed =
                    (StatefulRedisClusterConnection<String, String>) conn.connection();
            int slot = SlotHash.getSlot(key);
            RedisClusterNode master = routed.getPartitions().getMasterBySlot(slot);
            if (master == null) {
                refreshTopology();
                return CompletableFuture.failedFuture(
                        new IllegalStateException("the client's view of the cluster names no master for slot " + slot));
            }
            // By host and port, not node id: Lettuce keys its node connections by how they are asked
            // for, and the cluster connection routes a slot's writes to the one keyed by host and
            // port. A node-id connection would be a second TCP connection to the same master, and a
            // release sent without waiting on one could run after the next attempt sent on the other
            // (an interrupted waiter's clean-up overtaken by its client's next tryAcquire).
            RedisURI uri = master.getUri();
            return routed.getConnectionAsync(uri.getHost(), uri.getPort()).thenApply(node -> {
                // Counted from its first use on: its first connect came before, and is not a change.
                nodeConnectionChanges.computeIfAbsent(node, n -> new AtomicLong());
                return new RedisConnector.Commands(node, node.async(), node.async());
            });
        });
    }

    private CompletableFuture<Void> refreshTopology() {
        return ((RedisClusterClient) connector.client())
                .refreshPartitionsAsync()
                .toCompletableFuture()
                .exceptionally(failure -> {
                    log.debug("{}: re-reading the cluster topology failed: {}", address, failure.toString());
                    return null;
                });
    }

    /**
     * Runs a script on {@code via} (from {@link #routeFor}), or routed as {@link #eval} when it is
     * {@code null}. A redirect (MOVED/ASK) on a node connection fails the call once the topology was
     * re-read, so that {@link #routeFor} then names the slot's new master.
     */
    <T> CompletableFuture<T> eval(
            RedisConnector.Commands via,
            RedisScripts.Script script,
            ScriptOutputType type,
            String[] keys,
            String... args) {
        if (via == null) {
            return eval(script, type, keys, args);
        }
        return this.<T>evalOn(via, script, type, keys, args)
                .exceptionallyCompose(e -> RedisFailures.redirected(e)
                        ? refreshTopology().thenCompose(done -> CompletableFuture.<T>failedFuture(unwrap(e)))
                        : CompletableFuture.failedFuture(unwrap(e)));
    }

    /**
     * Sends {@code WAIT replicas timeoutMillis} on {@code via} (from {@link #routeFor}; {@code null}:
     * the command connection): the number of replicas that acknowledged every write that connection
     * made before it (see {@link RedisReplicaWait}). On a Cluster only on a node connection: the
     * cluster connection would send it to an arbitrary node.
     */
    CompletableFuture<Long> waitForReplicas(RedisConnector.Commands via, int replicas, long timeoutMillis) {
        if (via != null) {
            return via.base().waitForReplication(replicas, timeoutMillis).toCompletableFuture();
        }
        if (cluster) {
            return CompletableFuture.failedFuture(
                    new UnsupportedOperationException("WAIT after a routed write is not supported on a Redis Cluster"));
        }
        return connection.get().thenCompose(conn -> conn.base()
                .waitForReplication(replicas, timeoutMillis)
                .toCompletableFuture());
    }

    /**
     * Sends {@code INFO replication} on {@code via} as {@link #waitForReplicas}: how many replicas
     * the master has connected ({@code connected_slaves}).
     */
    CompletableFuture<Long> connectedReplicas(RedisConnector.Commands via) {
        if (via == null && cluster) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(
                    "INFO replication after a routed write is not supported on a Redis Cluster"));
        }
        CompletableFuture<RedisConnector.Commands> on =
                via != null ? CompletableFuture.completedFuture(via) : connection.get();
        return on.thenCompose(conn -> conn.base()
                        .dispatch(
                                io.lettuce.core.protocol.CommandType.INFO,
                                new io.lettuce.core.output.StatusOutput<>(io.lettuce.core.codec.StringCodec.UTF8),
                                new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8)
                                        .add("replication"))
                        .toCompletableFuture())
                .thenApply(RedisNode::connectedReplicas);
    }

    /** The {@code connected_slaves} field of an {@code INFO replication} answer; 0 on a replica. */
    static long connectedReplicas(String info) {
        for (String line : info.split("\\r?\\n")) {
            if (line.startsWith("connected_slaves:")) {
                return Long.parseLong(
                        line.substring("connected_slaves:".length()).trim());
            }
        }
        return 0;
    }

    /**
     * A Redis Cluster found through {@code seeds}. The topology is read from the seeds at the first
     * connect, re-read every {@code topologyRefresh} and at once (at most once a second) when a
     * command is redirected (MOVED/ASK) or a node connection keeps failing, so the client follows
     * resharding and failovers.
     */
    static RedisNode cluster(
            List<RedisURI> seeds, ClientResources resources, Duration operationTimeout, Duration topologyRefresh) {
        return new RedisNode(RedisConnector.cluster(seeds, resources, operationTimeout, topologyRefresh));
    }

    /** Whether this is a Redis Cluster: one script call may then only touch keys of one slot. */
    boolean isCluster() {
        return cluster;
    }

    /** host:port, the Sentinel master or the cluster's seeds, for messages. */
    String address() {
        return address;
    }

    /**
     * One {@code SCAN} step on the command connection. On a Cluster it is Lettuce's cluster-wide
     * SCAN, which walks every master in turn (the cursor names the master it is on), so scanning to
     * the end covers every master's keys.
     */
    @SuppressWarnings("unchecked")
    CompletableFuture<KeyScanCursor<String>> scan(ScanCursor cursor, ScanArgs args) {
        return connection.get().thenCompose(conn -> ((RedisKeyAsyncCommands<String, String>) conn.async())
                .scan(cursor, args)
                .toCompletableFuture());
    }

    /** Runs a script by EVALSHA; loads it with EVAL when the server answers NOSCRIPT. */
    <T> CompletableFuture<T> eval(RedisScripts.Script script, ScriptOutputType type, String[] keys, String... args) {
        RedisConnector.Commands open = connection.openNow();
        if (open != null) {
            // The common case, without a stage for the connection: one stage less to complete on
            // Lettuce's I/O thread per command.
            return evalOn(open, script, type, keys, args);
        }
        return connection.get().thenCompose(conn -> evalOn(conn, script, type, keys, args));
    }

    private <T> CompletableFuture<T> evalOn(
            RedisConnector.Commands conn,
            RedisScripts.Script script,
            ScriptOutputType type,
            String[] keys,
            String... args) {
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

    /** Registers a local listener for the channel (no I/O); see {@link RedisChannels}. */
    void addChannelListener(String channel, Consumer<String> listener) {
        channels.addListener(channel, listener);
    }

    void removeChannelListener(String channel, Consumer<String> listener) {
        channels.removeListener(channel, listener);
    }

    CompletableFuture<Void> subscribe(String channel) {
        return channels.subscribe(channel);
    }

    CompletableFuture<Void> unsubscribe(String channel) {
        return channels.unsubscribe(channel);
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
        CompletableFuture<RedisConnector.Commands> commands = connection.close();
        closeQuietly(commands == null ? null : commands.thenApply(RedisConnector.Commands::connection));
        closeQuietly(channels.close());
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
