package dev.baton.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Redis server (or one Sentinel-managed master) as a backend talks to it: one command
 * connection shared by every thread (Lettuce pipelines concurrent commands on it), one pub/sub
 * connection, and the scripts. Both connections are opened lazily and reopened after a failed
 * attempt; once open, Lettuce reconnects them by itself (and resubscribes channels).
 */
final class RedisNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisNode.class);

    private final RedisClient client;
    private final RedisURI uri;
    private final String address;
    private final ReentrantLock connecting = new ReentrantLock();
    private volatile CompletableFuture<StatefulRedisConnection<String, String>> connection;
    private volatile CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubsub;
    private final ConcurrentHashMap<String, List<Consumer<String>>> channelListeners = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param failFastWhenDisconnected reject commands while the connection is down instead of
     *     buffering them until it is back (Redlock counts a down node at once)
     */
    RedisNode(RedisURI uri, ClientResources resources, Duration operationTimeout, boolean failFastWhenDisconnected) {
        this.uri = uri;
        this.address = describe(uri);
        uri.setTimeout(operationTimeout);
        this.client = RedisClient.create(resources);
        client.setOptions(ClientOptions.builder()
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(operationTimeout)
                        .tcpNoDelay(true)
                        .keepAlive(true)
                        .build())
                .timeoutOptions(TimeoutOptions.enabled(operationTimeout))
                .disconnectedBehavior(
                        failFastWhenDisconnected
                                ? ClientOptions.DisconnectedBehavior.REJECT_COMMANDS
                                : ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .build());
    }

    static String describe(RedisURI uri) {
        if (!uri.getSentinels().isEmpty()) {
            RedisURI first = uri.getSentinels().get(0);
            return "master '" + uri.getSentinelMasterId() + "' via Sentinel " + first.getHost() + ":" + first.getPort();
        }
        return uri.getHost() + ":" + uri.getPort();
    }

    /** host:port, or the Sentinel master, for messages. */
    String address() {
        return address;
    }

    /** Runs a script by EVALSHA; loads it with EVAL when the server answers NOSCRIPT. */
    <T> CompletableFuture<T> eval(RedisScripts.Script script, ScriptOutputType type, String[] keys, String... args) {
        return connection().thenCompose(conn -> {
            CompletionStage<T> first = conn.async().evalsha(script.sha(), type, keys, args);
            return first.toCompletableFuture().exceptionallyCompose(e -> {
                Throwable cause = unwrap(e);
                if (cause instanceof RedisNoScriptException
                        || (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"))) {
                    log.debug("{}: script {} not cached on the server; loading it", address, script.name());
                    return conn.async()
                            .<T>eval(script.source(), type, keys, args)
                            .toCompletableFuture();
                }
                return CompletableFuture.failedFuture(cause);
            });
        });
    }

    private CompletableFuture<StatefulRedisConnection<String, String>> connection() {
        CompletableFuture<StatefulRedisConnection<String, String>> current = connection;
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
                current = client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture();
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
                current = client.connectPubSubAsync(StringCodec.UTF8, uri)
                        .toCompletableFuture()
                        .thenApply(conn -> {
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
        closeQuietly(connection);
        closeQuietly(pubsub);
        try {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
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
