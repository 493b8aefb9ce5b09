package dev.baton.internal;

import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition's wait on the backend, after the local gate: in the backend's own queue where it
 * has one for the request's kind, otherwise by attempts paced by backoff and woken early by the
 * backend's release notifications. One instance per attempt.
 *
 * <p>Why the send time is kept: a grant's lease is counted from when the call that obtained it was
 * sent (a polled grant) or from when the queue handed it over (a queued grant, whose wait may have
 * lasted longer than the lease time), never from when the wait began. A polled grant answered with
 * less than half of its validity left is released and the wait goes on (see {@link #answeredLate}).
 */
final class BackendWait {
    private static final Logger LOG = LoggerFactory.getLogger(BackendWait.class);

    private final ClientCore client;
    private final LocalLockState local;
    private final LockRequest request;
    private final LockOptions options;
    private final boolean interruptible;
    private final LockEvents.Attempt attempt;
    private boolean interrupted;
    private long sentAt;

    BackendWait(
            ClientCore client,
            LocalLockState local,
            LockRequest request,
            LockOptions options,
            boolean interruptible,
            LockEvents.Attempt attempt) {
        this.client = client;
        this.local = local;
        this.request = request;
        this.options = options;
        this.interruptible = interruptible;
        this.attempt = attempt;
    }

    /**
     * Waits for the grant.
     *
     * @param timeoutNanos 0 to try once, negative to wait without limit
     * @param start when the whole acquisition started, on the client's ticker
     * @return the grant, or empty if the time ran out
     * @throws InterruptedException if interrupted while interruptible (otherwise see {@link
     *     #interrupted()})
     */
    Optional<Grant> run(long timeoutNanos, long start) throws InterruptedException {
        return client.backend.queuesWaiters(request.kind()) ? queued(timeoutNanos, start) : polled(timeoutNanos, start);
    }

    /** When the call that obtained the grant was sent (or the queue handed it over). */
    long sentAt() {
        return sentAt;
    }

    /** Whether an interrupt arrived during an uninterruptible wait; the caller restores the flag. */
    boolean interrupted() {
        return interrupted;
    }

    private Optional<Grant> queued(long timeoutNanos, long start) throws InterruptedException {
        if (timeoutNanos != 0) {
            attempt.waiting(); // the backend's queue cannot tell a wait from an immediate grant
        }
        while (true) {
            client.checkOpen();
            long remaining =
                    timeoutNanos <= 0 ? timeoutNanos : Math.max(0, timeoutNanos - (client.ticker.nanoTime() - start));
            Optional<Grant> grant;
            try {
                grant = BackendAttempts.queue(client.backend, request, remaining);
            } catch (InterruptedException e) {
                if (interruptible) {
                    throw e;
                }
                interrupted = true;
                continue;
            }
            sentAt = client.ticker.nanoTime();
            return grant;
        }
    }

    /**
     * Whether a grant came back with less than half its validity left, counted from when its request
     * was sent (a stalled or cold client, a slow server): it is released and not handed out, as it
     * would be lost before its first renewal could be answered. The wait goes on if time is left.
     */
    private boolean answeredLate(Grant grant) {
        long validity = grant.validityNanos(options.leaseTime());
        long elapsed = client.ticker.nanoTime() - sentAt;
        if (elapsed < validity / 2) {
            return false;
        }
        LOG.warn(
                "Baton lock '{}' on {}: the grant (token {}) was answered {} ms after its request, with less"
                        + " than half of its {} ms validity left; released, not handed out",
                request.name(),
                client.backend.name(),
                grant.fencingToken(),
                elapsed / 1_000_000,
                validity / 1_000_000);
        try {
            client.backend.release(grant);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Baton lock '{}' on {}: releasing the late grant failed; it expires with its lease: {}",
                    request.name(),
                    client.backend.name(),
                    e.toString());
        }
        return true;
    }

    private Optional<Grant> polled(long timeoutNanos, long start) throws InterruptedException {
        Backoff backoff = new Backoff(options.pollInitialDelay(), options.pollMaxDelay());
        ReleaseHints notifications = client.notifications;
        ReleaseNotifications.Subscription subscription = null;
        boolean subscribing = notifications.supported();
        try {
            while (true) {
                client.checkOpen();
                long generation = local.signal.generation();
                sentAt = client.ticker.nanoTime();
                Optional<Grant> grant = BackendAttempts.tryOnce(client.backend, request);
                boolean late = grant.isPresent() && answeredLate(grant.get());
                if (grant.isPresent() && !late) {
                    return grant;
                }
                long remaining = timeoutNanos < 0 ? Long.MAX_VALUE : timeoutNanos - (client.ticker.nanoTime() - start);
                if (remaining <= 0) {
                    return Optional.empty();
                }
                if (late) {
                    continue; // the next attempt goes out at once: the lock was free a moment ago
                }
                attempt.waiting();
                if (subscription == null && subscribing) {
                    // Subscribe, then try again at once: a release between the attempt and the
                    // subscription would otherwise go unnoticed until the next poll.
                    subscription = notifications.subscribe(request, local.signal::signal);
                    subscribing = subscription != null;
                    continue;
                }
                try {
                    local.signal.await(generation, Math.min(backoff.nextPauseNanos(), remaining));
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    interrupted = true;
                }
            }
        } finally {
            if (subscription != null) {
                notifications.unsubscribe(request, subscription, client.isClosed());
            }
        }
    }
}
