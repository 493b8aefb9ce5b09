package dev.baton.redis;

import dev.baton.spi.ReleaseNotifications;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Release notifications over the pub/sub connection of each node: one Redis subscription per lock
 * name and client, shared by every waiter of that client through a reference count. A channel
 * stays subscribed for {@link #LINGER} after its last waiter left, because a thread that just got
 * the lock usually waits again soon; the linger saves a SUBSCRIBE round trip per contended
 * acquisition.
 *
 * <p>On a Redis Cluster there is one node object for the whole cluster and its pub/sub connection
 * goes to one node: plain PUBLISH is forwarded by the cluster to every node, so releases on any
 * master reach it (sharded pub/sub would need Redis 7 on every node).
 *
 * <p>Subscribing waits (at most the operation timeout) until one node confirmed the subscription,
 * so a release published after the waiter's next attempt is seen. A failed subscription only costs
 * latency: the core keeps a bounded poll as a fallback.
 */
final class RedisNotifications implements ReleaseNotifications {
    private static final Logger log = LoggerFactory.getLogger(RedisNotifications.class);
    static final Duration LINGER = Duration.ofSeconds(2);

    private final List<RedisNode> nodes;
    private final RedisKeys keys;
    private final Duration operationTimeout;
    private final ScheduledExecutorService scheduler;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Entry> entries = new HashMap<>();

    private static final class Entry {
        final List<Runnable> listeners = new CopyOnWriteArrayList<>();
        final Consumer<String> dispatcher = message -> listeners.forEach(Runnable::run);
        int refs;
        CompletableFuture<Void> ready;
        ScheduledFuture<?> linger;
    }

    RedisNotifications(
            List<RedisNode> nodes, RedisKeys keys, Duration operationTimeout, ScheduledExecutorService scheduler) {
        this.nodes = List.copyOf(nodes);
        this.keys = keys;
        this.operationTimeout = operationTimeout;
        this.scheduler = scheduler;
    }

    @Override
    public Subscription subscribe(String name, Runnable onRelease) {
        return subscribeChannel(keys.channel(name), onRelease);
    }

    /**
     * Like {@link #subscribe(String, Runnable)}, but returns at once: for a waiter that is queued for
     * a hand-over, whose next attempt must reach the queue before anything waits (see {@link
     * RedisWaitQueue#enqueue}); a release before the channel is subscribed is seen by its polls.
     */
    Subscription subscribeWithoutWaiting(String name, Runnable onRelease) {
        return subscribeChannel(keys.channel(name), onRelease, false);
    }

    /** Like {@link #subscribe(String, Runnable)} for a channel given by name (a semaphore's). */
    Subscription subscribeChannel(String channel, Runnable onRelease) {
        return subscribeChannel(channel, onRelease, true);
    }

    private Subscription subscribeChannel(String channel, Runnable onRelease, boolean awaitReady) {
        Entry entry;
        CompletableFuture<Void> ready;
        lock.lock();
        try {
            entry = entries.get(channel);
            if (entry == null) {
                entry = new Entry();
                entries.put(channel, entry);
                for (RedisNode node : nodes) {
                    node.addChannelListener(channel, entry.dispatcher);
                }
            }
            if (entry.ready == null || entry.ready.isCompletedExceptionally()) {
                entry.ready = firstSuccess(channel);
            }
            if (entry.linger != null) {
                entry.linger.cancel(false);
                entry.linger = null;
            }
            entry.refs++;
            entry.listeners.add(onRelease);
            ready = entry.ready;
        } finally {
            lock.unlock();
        }
        try {
            if (awaitReady) {
                ready.get(operationTimeout.toNanos(), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the core's wait sees it at once
        } catch (Exception e) {
            log.debug("subscribing to {} failed; waiters poll instead: {}", channel, e.toString());
        }
        Entry subscribed = entry;
        return () -> leave(channel, subscribed, onRelease);
    }

    private CompletableFuture<Void> firstSuccess(String channel) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        AtomicInteger failures = new AtomicInteger();
        for (RedisNode node : nodes) {
            node.subscribe(channel).whenComplete((ok, failure) -> {
                if (failure == null) {
                    result.complete(null);
                } else if (failures.incrementAndGet() == nodes.size()) {
                    result.completeExceptionally(failure);
                }
            });
        }
        return result;
    }

    private void leave(String channel, Entry entry, Runnable onRelease) {
        lock.lock();
        try {
            entry.listeners.remove(onRelease);
            if (--entry.refs > 0) {
                return;
            }
            try {
                entry.linger =
                        scheduler.schedule(() -> expire(channel, entry), LINGER.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                expire(channel, entry); // the client is closing
            }
        } finally {
            lock.unlock();
        }
    }

    private void expire(String channel, Entry entry) {
        lock.lock();
        try {
            if (entry.refs > 0 || entries.get(channel) != entry) {
                return;
            }
            entries.remove(channel);
            for (RedisNode node : nodes) {
                node.removeChannelListener(channel, entry.dispatcher);
                node.unsubscribe(channel);
            }
        } finally {
            lock.unlock();
        }
    }
}
