package dev.baton.redis;

import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This client's side of the hand-over (see {@link RedisScripts}): the exclusive waiters it has
 * queued in Redis, and its own channel on which a release names the one waiter it handed the lock
 * to. Waking exactly that waiter, already owning the lock, replaces a broadcast that woke one
 * waiter per client only for all but one to find the lock taken again.
 *
 * <p>A waiter is queued only while the core says it waits ({@code subscribe(request, ...)} until the
 * subscription closes), so a lock is never handed to a request nobody waits for, short of a process
 * that dies while waiting: its entry lives on for a short time after its last attempt (three poll
 * pauses, at least a second, at most the lease: {@link RedisLockBackend#queueEntryTtlMillis}), and
 * a lock handed to it within that window frees itself after its lease, as the lock of a holder that
 * died would.
 * If the channel cannot be subscribed, the waiter is not queued and waits as before.
 */
final class RedisWaitQueue {
    private static final Logger log = LoggerFactory.getLogger(RedisWaitQueue.class);

    /** One queued request of this client. */
    static final class Waiter {
        final LockRequest request;
        final String member;
        final Runnable onRelease;
        /** The token of a lock handed to this waiter, 0 while none was. */
        volatile long handedToken;
        /** When this waiter's latest refused attempt was sent (the hand-over came after it). */
        volatile long lastRefusedSentNanos;
        /** Set once the waiter took the lock: closing its subscription must not release it. */
        volatile boolean granted;

        Waiter(LockRequest request, String member, Runnable onRelease) {
            this.request = request;
            this.member = member;
            this.onRelease = onRelease;
            this.lastRefusedSentNanos = System.nanoTime();
        }

        /**
         * The lock a release handed to this waiter after its latest refused attempt, once: the lease
         * runs on the server from the hand-over, so the grant's validity counts from that attempt.
         * Empty if none was handed over, if that validity is spent (too late to trust the local clock),
         * or with {@code askServer}: the caller then asks the server, which renews a lock still this
         * waiter's.
         */
        Optional<Grant> takeHandedOver(boolean askServer) {
            long token = handedToken;
            if (token <= 0) {
                return Optional.empty();
            }
            handedToken = 0;
            long validityNanos = request.leaseTime().toNanos() - (System.nanoTime() - lastRefusedSentNanos);
            if (validityNanos <= 0 || askServer) {
                return Optional.empty();
            }
            granted = true;
            return Optional.of(Grant.of(request, token, Instant.now().plusNanos(validityNanos))
                    .withValidity(Duration.ofNanos(validityNanos)));
        }
    }

    private final RedisNode node;
    private final String channel;
    private final ConcurrentHashMap<String, Waiter> waiters = new ConcurrentHashMap<>();
    private final java.util.function.Consumer<String> listener = this::onMessage;
    private final ReentrantLock subscribing = new ReentrantLock();
    private volatile CompletableFuture<Void> subscribed;

    RedisWaitQueue(RedisNode node, RedisKeys keys) {
        this.node = node;
        byte[] id = new byte[12];
        new SecureRandom().nextBytes(id);
        this.channel = keys.prefix() + "handover:" + HexFormat.of().formatHex(id);
        node.addChannelListener(channel, listener);
    }

    /**
     * Queues {@code request} for a hand-over from the core's next attempt on, which comes at once:
     * nothing here waits for this client's channel to be subscribed. A client's first wait would
     * otherwise wait for it (a pub/sub connection opened, then SUBSCRIBE), and until the next attempt
     * put the waiter in the queue, the releasing client would take the lock straight back, for as long
     * as subscribing takes. A hand-over message sent before the channel is
     * subscribed is lost; the waiter's next poll then finds the lock handed to it (see {@link
     * RedisScripts}).
     *
     * @return the waiter, or null if this client's channel is known not to subscribe (then the caller
     *     waits without queueing)
     */
    Waiter enqueue(LockRequest request, Runnable onRelease) {
        if (subscribeChannel().isCompletedExceptionally()) {
            return null;
        }
        Waiter waiter = new Waiter(
                request,
                RedisHolders.queueMember(
                        request.ownerId(), Math.max(1, request.leaseTime().toMillis()), channel, request.holder()),
                onRelease);
        waiters.put(request.ownerId(), waiter);
        return waiter;
    }

    Waiter waiter(String ownerId) {
        return waiters.get(ownerId);
    }

    /** Forgets the waiter; true if it must still be dequeued in Redis (it was not granted). */
    boolean leave(Waiter waiter) {
        waiters.remove(waiter.request.ownerId(), waiter);
        return !waiter.granted;
    }

    /** Starts subscribing this client's channel unless it is subscribed or under way; never waits. */
    private CompletableFuture<Void> subscribeChannel() {
        CompletableFuture<Void> current = subscribed;
        if (current == null || current.isCompletedExceptionally()) {
            subscribing.lock();
            try {
                current = subscribed;
                if (current == null || current.isCompletedExceptionally()) {
                    current = node.subscribe(channel);
                    current.whenComplete((ok, failure) -> {
                        if (failure != null) {
                            log.debug(
                                    "subscribing to {} failed; waiters are not queued for a hand-over: {}",
                                    channel,
                                    failure.toString());
                        }
                    });
                    subscribed = current;
                }
            } finally {
                subscribing.unlock();
            }
        }
        return current;
    }

    /** {@code "<owner> <token>"}: the lock was handed to that waiter. Runs on Lettuce's thread. */
    private void onMessage(String message) {
        int space = message.indexOf(' ');
        if (space < 0) {
            return;
        }
        Waiter waiter = waiters.get(message.substring(0, space));
        if (waiter == null) {
            // It left meanwhile; the RELEASE it sent when leaving frees the lock (it runs after
            // the hand-over on the server) and hands it on.
            return;
        }
        try {
            waiter.handedToken = Long.parseLong(message.substring(space + 1));
        } catch (NumberFormatException e) {
            log.warn("ignoring a malformed hand-over message on {}: {}", channel, message);
            return;
        }
        waiter.onRelease.run();
    }

    void close() {
        node.removeChannelListener(channel, listener);
        waiters.clear();
    }
}
