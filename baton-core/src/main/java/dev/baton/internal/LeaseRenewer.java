package dev.baton.internal;

import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a client's due renewals to the backend: batched, pipelined and bounded.
 *
 * <p>The {@link RenewalTimer} hands over every grant due now (and those due within half of their
 * interval); they are grouped by lease time and cut into calls of at most {@link
 * LockBackend#renewalBatchSize()} grants ({@link LockBackend#renewAll}). At most {@link
 * #CALLS_IN_FLIGHT} calls run at once, each on its own thread of this renewer, so no renewal waits
 * for another's round trip, and a call that hangs (up to the operation timeout) holds back only the
 * grants in it. Calls beyond the window queue in order; a queued grant is still watched.
 *
 * <p>Before a grant is handed over, the timer arms its watchdog: the loss of a grant whose renewal
 * does not answer in time is reported at its validity deadline by the timer thread, which never does
 * I/O, however long the call or the queue before it takes.
 *
 * <p>The answers are applied here too ({@link #renewed}, {@link #refused}, {@link #failed}), also
 * for an extension ({@link LeaseExtension}); the grant itself only takes a new deadline ({@link
 * HeldGrant#takeRenewal}).
 *
 * <p>Threads: up to {@link #CALLS_IN_FLIGHT}, started on demand, ended after {@link #IDLE_SECONDS}
 * without work and by {@link #stop}.
 */
final class LeaseRenewer {
    private static final Logger log = LoggerFactory.getLogger(LeaseRenewer.class);

    /** Renewal calls one client has in flight at most. */
    static final int CALLS_IN_FLIGHT = 16;

    /** Longer than a default renewal interval (10 s), so that a quiet client keeps its threads. */
    private static final long IDLE_SECONDS = 60;

    private final LockBackend backend;
    private final Ticker ticker;
    private final LockEvents events;
    private final ThreadPoolExecutor calls;

    LeaseRenewer(String threadName, LockBackend backend, Ticker ticker, LockEvents events) {
        this.backend = backend;
        this.ticker = ticker;
        this.events = events;
        AtomicInteger count = new AtomicInteger();
        ThreadFactory threads = runnable -> {
            Thread thread = new Thread(runnable, threadName + "-call-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        this.calls = new ThreadPoolExecutor(
                CALLS_IN_FLIGHT, CALLS_IN_FLIGHT, IDLE_SECONDS, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads);
        this.calls.allowCoreThreadTimeOut(true);
    }

    /** Called on the timer thread with the held grants due for renewal; never blocks. */
    void dispatch(List<HeldGrant> due) {
        int batchSize = Math.max(1, backend.renewalBatchSize());
        Map<Duration, List<HeldGrant>> byLeaseTime = new LinkedHashMap<>();
        for (HeldGrant grant : due) {
            byLeaseTime
                    .computeIfAbsent(grant.options.leaseTime(), leaseTime -> new ArrayList<>())
                    .add(grant);
        }
        byLeaseTime.forEach((leaseTime, grants) -> {
            for (int from = 0; from < grants.size(); from += batchSize) {
                List<HeldGrant> call = grants.subList(from, Math.min(grants.size(), from + batchSize));
                calls.execute(() -> renew(call, leaseTime));
            }
        });
    }

    /**
     * One call: takes the grants still held, renews them together and applies each answer. The
     * listeners hear of it once the grants are let go, so that none of them waits for a listener.
     */
    private void renew(List<HeldGrant> call, Duration leaseTime) {
        List<HeldGrant> taken = new ArrayList<>(call.size());
        List<HeldGrant> renewed = new ArrayList<>(call.size());
        RuntimeException failure = null;
        try {
            for (HeldGrant grant : call) {
                if (grant.beginRenewal()) {
                    taken.add(grant);
                }
            }
            if (taken.isEmpty()) {
                return;
            }
            List<Grant> grants = new ArrayList<>(taken.size());
            for (HeldGrant grant : taken) {
                grants.add(grant.grant());
            }
            long sentAt = ticker.nanoTime();
            List<Optional<Grant>> answers;
            try {
                answers = backend.renewAll(grants, leaseTime);
                if (answers == null || answers.size() != grants.size()) {
                    throw new IllegalStateException(backend.name() + " answered a renewal of " + grants.size()
                            + " grant(s) with " + (answers == null ? "null" : answers.size() + " answer(s)"));
                }
            } catch (RuntimeException e) {
                failure = e;
                for (HeldGrant grant : taken) {
                    failed(grant, e);
                }
                return;
            }
            for (int i = 0; i < taken.size(); i++) {
                HeldGrant grant = taken.get(i);
                Optional<Grant> answer = answers.get(i);
                if (answer.isPresent()) {
                    if (renewed(grant, answer.get(), sentAt, grant.options.leaseTime(), true)) {
                        renewed.add(grant);
                    }
                } else {
                    refused(grant);
                }
            }
        } catch (RuntimeException e) {
            log.error("{}: unexpected failure in renewal", backend.name(), e);
            for (HeldGrant grant : taken) {
                grant.markLost("renewal failed unexpectedly: " + e, e);
            }
        } finally {
            for (HeldGrant grant : taken) {
                grant.endRenewal();
            }
            for (HeldGrant grant : renewed) {
                events.renewed(grant.acquisition);
            }
            for (HeldGrant grant : taken) {
                if (failure != null) {
                    events.renewalFailed(grant.acquisition, failure);
                }
                LossListeners.report(grant);
            }
        }
    }

    /**
     * A renewal sent at {@code sentAt} renewed {@code held} for {@code leaseTime} (with {@code
     * byRenewer} false, an extension: the renewal schedule is left as it is, and a grant without
     * auto-renewal extended to a sooner deadline gets an expiry task at that deadline). Validity
     * counts from the send time. An answer that arrives after the validity deadline does not bring
     * the grant back: by then isValid() has turned false and the watchdog reports (or has reported)
     * the loss, so the grant stays lost, and the renewed grant is released best-effort so that another
     * owner need not wait a whole lease time for it. Called with the grant taken for renewal.
     *
     * @return whether the grant took the renewal
     */
    static boolean renewed(HeldGrant held, Grant renewed, long sentAt, Duration leaseTime, boolean byRenewer) {
        long previous = held.validUntilNanos();
        if (held.takeRenewal(renewed, sentAt, leaseTime)) {
            RenewalTimer timer = held.client.renewals;
            if (byRenewer) {
                // Counted from the send time, like the validity: grants renewed in one call stay due
                // together however long each answer took.
                timer.scheduleRenewal(held, sentAt);
            } else if (!held.options.autoRenew() && held.validUntilNanos() - previous < 0) {
                timer.scheduleIfHeld(
                        held, RenewalTimer.Kind.EXPIRE, held.validUntilNanos() - held.client.ticker.nanoTime(), 0);
            }
            return true;
        }
        held.markLost(
                "its " + (byRenewer ? "renewal" : "extension") + " answered only after its validity had run out", null);
        if (held.status() == HeldGrant.Status.LOST) {
            try {
                held.client.backend.release(renewed);
            } catch (RuntimeException e) {
                log.debug("{}: releasing the late-renewed grant failed: {}", held.describe(), e.toString());
            }
        }
        return false;
    }

    /** The backend no longer has {@code held}. */
    static void refused(HeldGrant held) {
        held.markLost(
                "the backend no longer has this grant (it expired and may have been taken by another owner, or an operator broke it with a forced release)",
                null);
    }

    /** A renewal call failed for {@code held}: retried while it is still valid. */
    private static void failed(HeldGrant held, RuntimeException failure) {
        long now = held.client.ticker.nanoTime();
        long remaining = held.validUntilNanos() - now;
        if (remaining <= 0) {
            held.markLost("it could not be renewed before its lease time (" + held.leaseTime() + ") ran out", failure);
            return;
        }
        log.warn(
                "{}: renewal failed, retrying while the lease is still valid: {}", held.describe(), failure.toString());
        long retryNanos = Math.min(RenewalTimer.renewInterval(held, now) / 2, remaining);
        held.client.renewals.scheduleIfHeld(held, RenewalTimer.Kind.RENEW, retryNanos, 0);
    }

    /**
     * Whether no renewal call is running or queued: every call sent so far has been answered and its
     * grants updated. For tests that move a stopped clock only once the renewals are done with.
     */
    boolean idle() {
        return calls.getActiveCount() == 0 && calls.getQueue().isEmpty();
    }

    /**
     * Stops taking calls and waits up to {@code waitMillis} for those in flight (they are bounded by
     * the operation timeout); interrupts them if they take longer.
     *
     * @return whether every renewal thread has ended
     */
    boolean stop(long waitMillis) {
        calls.shutdown();
        try {
            if (!calls.awaitTermination(waitMillis, TimeUnit.MILLISECONDS)) {
                calls.shutdownNow();
                return calls.awaitTermination(waitMillis, TimeUnit.MILLISECONDS);
            }
            return true;
        } catch (InterruptedException e) {
            calls.shutdownNow();
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
