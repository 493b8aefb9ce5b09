package dev.baton.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The pub/sub side of a {@link RedisNode}: one pub/sub connection, opened on the first subscription
 * and reopened after a failed attempt (once open, Lettuce reconnects it and subscribes its channels
 * again), and the local listeners of each channel, which get every message on Lettuce's thread.
 */
final class RedisChannels {
    private final RedisConnector connector;
    private final ReentrantLock connecting = new ReentrantLock();
    private final ConcurrentHashMap<String, List<Consumer<String>>> listeners = new ConcurrentHashMap<>();
    private volatile CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubsub;
    private volatile boolean closed;

    RedisChannels(RedisConnector connector) {
        this.connector = connector;
    }

    /** Registers a local listener for the channel (no I/O). */
    void addListener(String channel, Consumer<String> listener) {
        listeners.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>()).add(listener);
    }

    void removeListener(String channel, Consumer<String> listener) {
        listeners.computeIfPresent(channel, (c, list) -> {
            list.remove(listener);
            return list.isEmpty() ? null : list;
        });
    }

    CompletableFuture<Void> subscribe(String channel) {
        return pubsub().thenCompose(conn -> conn.async().subscribe(channel).toCompletableFuture());
    }

    /** Unsubscribes on an open connection; nothing to do while none is open. */
    CompletableFuture<Void> unsubscribe(String channel) {
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> current = pubsub;
        if (current == null || !current.isDone() || current.isCompletedExceptionally()) {
            return CompletableFuture.completedFuture(null);
        }
        return current.thenCompose(conn -> conn.async().unsubscribe(channel).toCompletableFuture());
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
                current = RedisNode.started(connector::connectPubSub).thenApply(conn -> {
                    conn.addListener(new RedisPubSubAdapter<>() {
                        @Override
                        public void message(String channel, String message) {
                            List<Consumer<String>> registered = listeners.get(channel);
                            if (registered != null) {
                                for (Consumer<String> listener : registered) {
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

    /** Refuses new subscriptions; the connection, if any, for the node to close. */
    CompletableFuture<StatefulRedisPubSubConnection<String, String>> close() {
        connecting.lock();
        try {
            closed = true;
        } finally {
            connecting.unlock();
        }
        return pubsub;
    }
}
