package dev.baton.internal;

import dev.baton.LockUnavailableException;
import dev.baton.spi.BlockingWait;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import dev.baton.spi.WaitQueue;
import dev.baton.spi.Waiting;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One acquisition's time on the backend, past the local gate, in the form the backend waits in
 * ({@link Waiting}): attempts paced by backoff and woken by release hints; an entry in the backend's
 * line, attempted when the backend wakes it and at least once per {@code pollMaxDelay}; or one
 * blocking call. It runs on its {@link Acquisition}'s driver, step by step, and hands the outcome
 * back to it ({@link Acquisition#granted}, {@link Acquisition#fail}, {@link Acquisition#end}).
 *
 * <p>Why the send time is kept: a grant's validity counts from when the call that obtained it was
 * sent, never from when the wait began. A grant answered with less than half of its validity left
 * (a stalled client, a slow server) is released and the wait goes on ({@link #late}).
 */
final class BackendWait {
    private final Acquisition acquisition;
    private final ClientCore client;
    private final LockHandle lock;
    private final Driver driver;
    private final LockRequest request;
    private final AtomicBoolean attemptPending = new AtomicBoolean();
    private volatile PinnedCall blockingCall;

    // Touched by steps only, one at a time.
    private Waiting waiting;
    private WaitQueue.Entry entry;
    private ReleaseNotifications.Subscription subscription;
    private boolean subscribed;
    private Backoff backoff;
    private ScheduledFuture<?> retry;
    private long sentAt;
    /** Grants of this wait answered too late to hand out ({@link #late}). */
    private int lateAnswers;
    /** Why the last late grant was released, for a timeout's message ({@link #timeoutCause}). */
    private volatile String lateAnswer;
    /** Whether a call to the backend returned (with or without a grant): only then can a timeout blame a holder. */
    private volatile boolean answered;

    BackendWait(Acquisition acquisition, ClientCore client, LockHandle lock, Driver driver, LockRequest request) {
        this.acquisition = acquisition;
        this.client = client;
        this.lock = lock;
        this.driver = driver;
        this.request = request;
    }

    /** A single attempt (a zero timeout). */
    void tryOnce() {
        sentAt = client.ticker.nanoTime();
        Optional<Grant> grant = BackendAttempts.tryOnce(client, request);
        answered = true;
        if (grant.isPresent() && !late(grant.get())) {
            acquisition.granted(grant.get(), sentAt);
        } else {
            acquisition.end(Acquisition.Stop.TIMEOUT);
        }
    }

    /** Starts waiting in the backend's form. */
    void begin() {
        waiting = client.waiting(lock.kind());
        switch (waiting.form()) {
            case POLLING -> {
                backoff = new Backoff(
                        lock.options().pollInitialDelay(), lock.options().pollMaxDelay());
                pollAttempt();
            }
            case QUEUE -> enterLine();
            case BLOCKING -> block();
        }
    }

    /** Schedules an attempt now (a release hint, the backend's wake, a retry timer); from any thread. */
    void poke() {
        if (attemptPending.compareAndSet(false, true)) {
            driver.execute(this::attemptAgain);
        }
    }

    /**
     * Ends a blocking call of the asynchronous API, which then reports itself; from any thread. A
     * cancel or close interrupts it (the blocking wait withdraws its request when interrupted); a
     * timeout only keeps a call from starting, as a running one ends by its own timeout.
     */
    void cancelBlockingCall(boolean timedOut) {
        PinnedCall call = blockingCall;
        if (call != null) {
            if (timedOut) {
                call.cancelUnstarted();
            } else {
                call.cancel();
            }
        }
    }

    /** Whether a blocking call is out; it reports its outcome itself. */
    boolean blocking() {
        return blockingCall != null;
    }

    /** Leaves the backend's line and the release hints, and stops retrying; nothing of them stays. */
    void leave() {
        cancelRetry();
        if (subscription != null) {
            client.hints.unsubscribe(request, subscription);
            subscription = null;
        }
        if (entry != null) {
            client.hints.leave(request, entry);
            entry = null;
        }
    }

    private void attemptAgain() {
        attemptPending.set(false);
        if (acquisition.done() || waiting == null) {
            return;
        }
        if (acquisition.stopReason() != null) {
            acquisition.stopped();
            return;
        }
        try {
            switch (waiting.form()) {
                case POLLING -> pollAttempt();
                case QUEUE -> attemptInLine();
                case BLOCKING -> {} // the blocking call reports itself
            }
        } catch (RuntimeException e) {
            acquisition.fail(e);
        }
    }

    private void pollAttempt() {
        cancelRetry();
        sentAt = client.ticker.nanoTime();
        Optional<Grant> grant = BackendAttempts.tryOnce(client, request);
        answered = true;
        if (grant.isPresent()) {
            if (!late(grant.get())) {
                acquisition.granted(grant.get(), sentAt);
            } else if (!acquisition.timedOut()) {
                poke(); // the lock was free a moment ago: again at once
            }
            return;
        }
        if (acquisition.timedOut()) {
            return;
        }
        acquisition.waiting();
        if (!subscribed && waiting.notifications().supported()) {
            // Subscribe, then try again at once: a release between the attempt and the subscription
            // would otherwise go unnoticed until the next retry.
            subscribed = true;
            subscription = client.hints.subscribe(waiting.notifications(), request, this::poke);
            poke();
            return;
        }
        retryIn(backoff.nextPauseNanos());
    }

    private void enterLine() {
        sentAt = client.ticker.nanoTime();
        entry = BackendAttempts.enter(client, waiting.queue(), request, this::poke);
        answered = true;
        Optional<Grant> grant = entry.grantedOnEntry();
        if (grant.isPresent()) {
            entry = null;
            takeFromLine(grant.get());
            return;
        }
        acquisition.waiting();
        retryIn(lock.options().pollMaxDelay().toNanos());
    }

    private void attemptInLine() {
        cancelRetry();
        if (entry == null) {
            enterLine();
            return;
        }
        sentAt = client.ticker.nanoTime();
        Optional<Grant> grant;
        try {
            grant = entry.attempt();
        } catch (RuntimeException e) {
            throw new LockUnavailableException(
                    lock.describe() + ": the backend failed while waiting in its line: " + e.getMessage(), e);
        } catch (LinkageError e) {
            throw new LockUnavailableException(lock.describe() + ": " + BackendAttempts.classPathProblem(e), e);
        }
        answered = true;
        if (grant.isPresent()) {
            entry = null;
            takeFromLine(grant.get());
            return;
        }
        if (!acquisition.timedOut()) {
            retryIn(lock.options().pollMaxDelay().toNanos());
        }
    }

    /** A grant from the line: a late one was released by {@link #late}, so the request lines up again. */
    private void takeFromLine(Grant grant) {
        if (late(grant)) {
            if (!acquisition.timedOut()) {
                poke();
            }
        } else {
            acquisition.granted(grant, sentAt);
        }
    }

    private void block() {
        BlockingWait wait = waiting.blockingWait();
        if (!driver.onCallerThread()) {
            // An asynchronous wait first tries once: a free lock needs no thread of the bounded pool,
            // where its call could wait behind others' long waits.
            sentAt = client.ticker.nanoTime();
            Optional<Grant> free = BackendAttempts.tryOnce(client, request);
            answered = true;
            if (free.isPresent() && !late(free.get())) {
                acquisition.granted(free.get(), sentAt);
                return;
            }
            if (acquisition.timedOut()) {
                return;
            }
            acquisition.waiting();
            // The time left is read when a pool thread runs the call, not when it is queued: the
            // pool is bounded, and a call may wait for a thread.
            PinnedCall call = new PinnedCall(
                    () -> BackendAttempts.block(client.backend, wait, request, blockNanos()),
                    (grant, failure) -> driver.execute(() -> blocked(grant, failure)));
            blockingCall = call;
            client.waits.pinned(waiting.concurrency()).execute(call);
            if (acquisition.stopReason() != null) {
                call.cancel();
            }
            return;
        }
        acquisition.waiting();
        while (true) {
            try {
                blocked(BackendAttempts.block(client.backend, wait, request, blockNanos()), null);
                return;
            } catch (InterruptedException e) {
                if (acquisition.interruptedInCall()) {
                    blocked(Optional.empty(), e);
                    return;
                }
                // an uninterruptible wait goes on with the time left
            }
        }
    }

    /** The time left for a blocking call: negative for no limit, never 0 (a call of 0 would not wait). */
    private long blockNanos() {
        long remaining = acquisition.remainingNanos();
        return remaining == Long.MIN_VALUE ? -1 : Math.max(1, remaining);
    }

    private void blocked(Optional<Grant> grant, Throwable failure) {
        blockingCall = null;
        if (failure == null) {
            answered = true;
        }
        if (failure instanceof Error error) {
            acquisition.crashed(error);
        } else if (grant.isPresent()) {
            acquisition.granted(grant.get(), client.ticker.nanoTime());
        } else if (failure instanceof RuntimeException e && acquisition.stopReason() == null) {
            acquisition.fail(e);
        } else {
            Acquisition.Stop why = acquisition.stopReason();
            acquisition.end(why != null ? why : Acquisition.Stop.TIMEOUT);
        }
    }

    private void retryIn(long nanos) {
        long remaining = acquisition.remainingNanos();
        long delay = remaining == Long.MIN_VALUE ? nanos : Math.min(nanos, Math.max(0, remaining));
        retry = client.waits.schedule(this::poke, delay);
    }

    private void cancelRetry() {
        if (retry != null) {
            retry.cancel(false);
            retry = null;
        }
    }

    /**
     * Why a timed-out wait got no grant, when it was not another owner: late answers, or no answer
     * at all (no call to the backend returned); null when a holder is the reason.
     */
    String timeoutCause() {
        if (lateAnswer != null) {
            return lateAnswer;
        }
        if (!answered) {
            return "the backend answered none of its attempts in that time, so whether another owner holds the"
                    + " lock is unknown; check that the backend is reachable and not overloaded, or wait longer";
        }
        return null;
    }

    /**
     * Whether a grant came back with less than half its validity left, counted from when its request
     * was sent (a stalled or cold client, a slow server): it is then released and not handed out, as
     * it would be lost before its first renewal could be answered.
     *
     * <p>The first such answer of a wait is logged at debug only: it is usually the client's first
     * call (connecting, loading classes, creating the tables), and the next attempt costs the caller
     * nothing they can act on. A second one in the same wait means round trips near half the lease
     * time, which the warning says how to fix.
     */
    private boolean late(Grant grant) {
        long validity = grant.validityNanos(lock.options().leaseTime());
        long elapsed = client.ticker.nanoTime() - sentAt;
        if (elapsed < validity / 2) {
            return false;
        }
        lateAnswer = "the backend's answer came " + elapsed / 1_000_000 + " ms after the request, more than half"
                + " of the lease's " + validity / 1_000_000 + " ms validity, so the grant was released unused;"
                + " this machine or the backend is too slow for the lease time: check their load, or raise the"
                + " lease time";
        client.releaseLate(lock, grant, elapsed, validity, ++lateAnswers > 1);
        return true;
    }
}
