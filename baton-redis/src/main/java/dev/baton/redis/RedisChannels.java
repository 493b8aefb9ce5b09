package dev.baton.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The pub/sub side of a {@link RedisNode}: one pub/sub connection, opened on the first subscription
 * and reopened after a failed attempt (once open, Lettuce reconnects it and subscribes its channels
 * again), and the local listeners of each channel, which get every message on Lettuce's thread.
 */
final class RedisChannels {
    private final ConcurrentHashMap<String, List<Consumer<String>>> listeners = new ConcurrentHashMap<>();
    private final LazyConnection<StatefulRedisPubSubConnection<String, String>> pubsub;

    RedisChannels(RedisConnector connector) {
        this.pubsub = new LazyConnection<>(() -> connector.connectPubSub().thenApply(this::dispatching));
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
        return pubsub.get().thenCompose(conn -> conn.async().subscribe(channel).toCompletableFuture());
    }

    /** Unsubscribes on an open connection; nothing to do while none is open. */
    CompletableFuture<Void> unsubscribe(String channel) {
        StatefulRedisPubSubConnection<String, String> open = pubsub.openNow();
        return open == null
                ? CompletableFuture.completedFuture(null)
                : open.async().unsubscribe(channel).toCompletableFuture();
    }

    /** Hands each message to the channel's local listeners, on Lettuce's thread. */
    private StatefulRedisPubSubConnection<String, String> dispatching(
            StatefulRedisPubSubConnection<String, String> conn) {
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
    }

    /** Refuses new subscriptions; the connection, if any, for the node to close. */
    CompletableFuture<StatefulRedisPubSubConnection<String, String>> close() {
        return pubsub.close();
    }
}
