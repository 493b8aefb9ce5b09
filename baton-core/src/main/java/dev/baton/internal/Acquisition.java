package dev.baton.internal;

import dev.baton.LockListener.AcquireOutcome;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import dev.baton.spi.WaitQueue;
import dev.baton.spi.Waiting;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One acquisition that is not reentrant, from the local gate to the grant or to its end without one:
 * the one implementation of waiting behind the blocking and the asynchronous API.
 *
 * <p>It is a sequence of short steps run by its {@link Driver}, one at a time: enter the gate, then
 * try the backend in the form the backend waits in ({@link Waiting}): attempts paced by backoff and
 * woken by release hints, an entry in the backend's line woken by the backend, or one blocking call.
 * Between two steps it holds no thread. Events from other threads (a wake, a retry or deadline timer,
 * a cancel, the client closing) only schedule steps ({@link #poke()}, {@link #stop}), so every field
 * but the few atomics below is touched by one step at a time and needs no lock.
 *
 * <p>Why the send time is kept: a grant's validity counts from when the call that obtained it was
 * sent, never from when the wait began. A grant answered with less than half of its validity left
 * (a stalled client, a slow server) is released and the wait goes on ({@link #late}).
 *
 * <p>Ending: whatever stops it (its timeout, an interrupt of the blocking caller, a cancel of the
 * asynchronous future, the client closing, a failure) it leaves the gate, its subscription and its
 * entry in the backend's line before {@link #result} completes, so nothing is left behind. A grant
 * that arrives after a cancel is released.
 */
final class Acquisition {
    /** Why an acquisition stops before a grant; the first reason wins. */
    enum Stop {
        TIMEOUT,
        INTERRUPTED,
        CANCELLED,
        CLOSED
    }

    private final ClientCore client;
    private final LockHandle lock;
    private final LocalLockState local;
    private final Driver driver;
    private final long start;
    private final long timeoutNanos;
    private final Thread caller;
    private final boolean threadBound;
    private final boolean interruptible;
    private final LockEvents.Attempt attempt;

    /** The grant as held, or null when the time ran out; exceptional on failure, interrupt or close. */
    final CompletableFuture<HeldGrant> result = new CompletableFuture<>();

    private final AtomicBoolean attemptPending = new AtomicBoolean();
    private final AtomicReference<Stop> stop = new AtomicReference<>();
    private volatile BlockingCall blockingCall;

    // Touched by steps only, one at a time.
    private boolean done;
    private boolean gateQueued;
    private boolean gateHeld;
    private LockRequest request;
    private Waiting waiting;
    private WaitQueue.Entry entry;
    private ReleaseNotifications.Subscription subscription;
    private boolean subscribed;
    private Backoff backoff;
    private ScheduledFuture<?> retry;
    private ScheduledFuture<?> deadline;
    private long sentAt;
    private boolean interruptSwallowed;

    /**
     * @param timeoutNanos 0 to try once, negative to wait without limit
     * @param caller the thread that asked, named in the holder description
     * @param threadBound whether the grant becomes the caller's hold (the blocking API's locks), not
     *     a lease of its own (asynchronous acquisitions, permits)
     * @param interruptible whether an interrupt of the blocking caller ends the wait
     */
    Acquisition(
            ClientCore client,
            LockHandle lock,
            LocalLockState local,
            Driver driver,
            long start,
            long timeoutNanos,
            Thread caller,
            boolean threadBound,
            boolean interruptible,
            LockEvents.Attempt attempt) {
        this.client = client;
        this.lock = lock;
        this.local = local;
        this.driver = driver;
        this.start = start;
        this.timeoutNanos = timeoutNanos;
        this.caller = caller;
        this.threadBound = threadBound;
        this.interruptible = interruptible;
        this.attempt = attempt;
    }

    /**
     * Starts, on the caller's thread: the gate is entered here, so that the waiters of one client line
     * up in the order they called, and the first step that talks to the backend runs on the driver.
     * Nothing here blocks.
     */
    void start() {
        if (client.isClosed()) {
            driver.execute(() -> end(Stop.CLOSED));
            return;
        }
        if (timeoutNanos > 0) {
            deadline = client.waits.schedule(() -> stop(Stop.TIMEOUT), remainingNanos());
        }
        if (local.gated()) {
            // Written before entering: once queued, a release may hand this acquisition its permit
            // on another thread at once, so nothing here may write after a queued enter.
            gateQueued = timeoutNanos != 0;
            if (!local.gate.enter(this, gateQueued)) {
                driver.execute(timeoutNanos == 0 ? () -> end(Stop.TIMEOUT) : attempt::waiting);
                return;
            }
            gateQueued = false;
            gateHeld = true;
        }
        driver.execute(this::onBackend);
    }

    /** Asks it to stop; from any thread. A grant already on its way is released (cancel, close). */
    void stop(Stop why) {
        if (stop.compareAndSet(null, why)) {
            BlockingCall call = blockingCall;
            if (call != null && why != Stop.TIMEOUT) {
                call.cancel(); // the blocking wait withdraws its request when interrupted
            }
            driver.execute(this::stopped);
        }
    }

    /**
     * The blocking caller was interrupted while it waited for a step: an interruptible wait stops, an
     * uninterruptible one goes on and the caller sets its interrupt flag again at the end.
     */
    void interrupted() {
        if (interruptible) {
            stop(Stop.INTERRUPTED);
        } else {
            interruptSwallowed = true;
        }
    }

    /** Whether an uninterruptible wait was interrupted; read by the caller once it is over. */
    boolean interruptSwallowed() {
        return interruptSwallowed;
    }

    /** Schedules an attempt now (a release hint, the backend's wake, a retry timer); from any thread. */
    void poke() {
        if (attemptPending.compareAndSet(false, true)) {
            driver.execute(this::attemptAgain);
        }
    }

    /** The gate handed this acquisition its permit; from the releasing thread. */
    void gateOpened() {
        driver.execute(() -> {
            gateQueued = false;
            gateHeld = true;
            if (done) {
                releaseGate();
            } else {
                onBackend();
            }
        });
    }

    private void onBackend() {
        if (done) {
            return;
        }
        if (stop.get() != null) {
            stopped();
            return;
        }
        try {
            client.checkOpen();
            request = client.request(lock, caller);
            if (timeoutNanos == 0) {
                sentAt = client.ticker.nanoTime();
                Optional<Grant> grant = BackendAttempts.tryOnce(client.backend, request);
                if (grant.isPresent() && !late(grant.get())) {
                    granted(grant.get());
                } else {
                    end(Stop.TIMEOUT);
                }
                return;
            }
            waiting = client.waiting(lock.kind());
            local.waiters.add(this);
            switch (waiting.form()) {
                case POLLING -> {
                    backoff = new Backoff(
                            lock.options().pollInitialDelay(), lock.options().pollMaxDelay());
                    pollAttempt();
                }
                case QUEUE -> enterLine();
                case BLOCKING -> block();
            }
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    private void attemptAgain() {
        attemptPending.set(false);
        if (done || request == null || waiting == null) {
            return;
        }
        if (stop.get() != null) {
            stopped();
            return;
        }
        try {
            switch (waiting.form()) {
                case POLLING -> pollAttempt();
                case QUEUE -> attemptInLine();
                case BLOCKING -> {} // the blocking call reports itself
            }
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    private void pollAttempt() {
        cancelRetry();
        sentAt = client.ticker.nanoTime();
        Optional<Grant> grant = BackendAttempts.tryOnce(client.backend, request);
        if (grant.isPresent()) {
            if (!late(grant.get())) {
                granted(grant.get());
            } else {
                poke(); // the lock was free a moment ago: again at once
            }
            return;
        }
        if (timedOut()) {
            return;
        }
        attempt.waiting();
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
        entry = BackendAttempts.enter(client.backend, waiting.queue(), request, this::poke);
        Optional<Grant> grant = entry.grantedOnEntry();
        if (grant.isPresent()) {
            entry = null;
            takeFromLine(grant.get());
            return;
        }
        attempt.waiting();
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
        }
        if (grant.isPresent()) {
            entry = null;
            takeFromLine(grant.get());
            return;
        }
        if (!timedOut()) {
            retryIn(lock.options().pollMaxDelay().toNanos());
        }
    }

    /** A grant from the line: a late one was released by {@link #late}, so the request lines up again. */
    private void takeFromLine(Grant grant) {
        if (late(grant)) {
            poke();
        } else {
            granted(grant);
        }
    }

    private void block() {
        long remaining = timeoutNanos < 0 ? -1 : Math.max(1, remainingNanos());
        attempt.waiting();
        if (!driver.onCallerThread()) {
            BlockingCall call = new BlockingCall(request, remaining);
            blockingCall = call;
            client.waits.pinned(waiting.concurrency()).execute(call);
            if (stop.get() != null) {
                call.cancel();
            }
            return;
        }
        while (true) {
            try {
                Optional<Grant> grant =
                        BackendAttempts.block(client.backend, waiting.blockingWait(), request, remaining);
                sentAt = client.ticker.nanoTime();
                blocked(grant, null);
                return;
            } catch (InterruptedException e) {
                if (interruptible) {
                    stop.compareAndSet(null, Stop.INTERRUPTED);
                    blocked(Optional.empty(), e);
                    return;
                }
                interruptSwallowed = true;
                remaining = timeoutNanos < 0 ? -1 : Math.max(1, remainingNanos());
            }
        }
    }

    /**
     * A blocking wait of an asynchronous acquisition, on the pinned pool. Why not a {@code Future}: a
     * cancelled {@code FutureTask} that has not started never runs, so it would never report back;
     * this one always reports, and is interrupted only while it runs.
     */
    private final class BlockingCall implements Runnable {
        private final LockRequest waitingRequest;
        private final long waitNanos;
        private final ReentrantLock lock = new ReentrantLock();
        private Thread runner;
        private boolean cancelled;

        BlockingCall(LockRequest waitingRequest, long waitNanos) {
            this.waitingRequest = waitingRequest;
            this.waitNanos = waitNanos;
        }

        void cancel() {
            lock.lock();
            try {
                cancelled = true;
                if (runner != null) {
                    runner.interrupt();
                }
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void run() {
            lock.lock();
            try {
                if (cancelled) {
                    driver.execute(() -> blocked(Optional.empty(), new InterruptedException()));
                    return;
                }
                runner = Thread.currentThread();
            } finally {
                lock.unlock();
            }
            Optional<Grant> grant = Optional.empty();
            Exception failure = null;
            try {
                grant = BackendAttempts.block(client.backend, waiting.blockingWait(), waitingRequest, waitNanos);
            } catch (InterruptedException | RuntimeException e) {
                failure = e;
            } finally {
                lock.lock();
                try {
                    runner = null;
                    Thread.interrupted(); // a cancel that came as the call returned is not the pool's
                } finally {
                    lock.unlock();
                }
            }
            Optional<Grant> outcome = grant;
            Exception failed = failure;
            driver.execute(() -> blocked(outcome, failed));
        }
    }

    private void blocked(Optional<Grant> grant, Exception failure) {
        blockingCall = null;
        if (grant.isPresent()) {
            sentAt = client.ticker.nanoTime();
            granted(grant.get());
        } else if (failure instanceof RuntimeException e && stop.get() == null) {
            fail(e);
        } else {
            Stop why = stop.get();
            end(why != null ? why : Stop.TIMEOUT);
        }
    }

    /** Ends with a timeout if the time is up; the deadline timer does the same when it fires. */
    private boolean timedOut() {
        if (timeoutNanos >= 0 && remainingNanos() <= 0) {
            end(Stop.TIMEOUT);
            return true;
        }
        return false;
    }

    private long remainingNanos() {
        return timeoutNanos - (client.ticker.nanoTime() - start);
    }

    private void retryIn(long nanos) {
        long delay = timeoutNanos < 0 ? nanos : Math.min(nanos, Math.max(0, remainingNanos()));
        retry = client.waits.schedule(this::poke, delay);
    }

    private void cancelRetry() {
        if (retry != null) {
            retry.cancel(false);
            retry = null;
        }
    }

    /**
     * Whether a grant came back with less than half its validity left, counted from when its request
     * was sent: it is then released and not handed out, as it would be lost before its first renewal
     * could be answered.
     */
    private boolean late(Grant grant) {
        long validity = grant.validityNanos(lock.options().leaseTime());
        long elapsed = client.ticker.nanoTime() - sentAt;
        if (elapsed < validity / 2) {
            return false;
        }
        client.releaseLate(lock, grant, elapsed, validity);
        return true;
    }

    private void granted(Grant grant) {
        Stop why = stop.get();
        if (why == Stop.CANCELLED || why == Stop.CLOSED) {
            client.releaseUnwanted(lock, grant);
            end(why);
            return;
        }
        done = true;
        leaveWaiting();
        gateHeld = false; // from now on the gate is given back when the grant is released
        HeldGrant hold;
        try {
            hold = client.hold(local, lock, threadBound ? caller : null, grant, sentAt, attempt);
        } catch (RuntimeException e) {
            // The client closed meanwhile: hold() released the grant.
            complete(e);
            return;
        }
        result.complete(hold);
        client.acquisitionEnded(this);
    }

    private void stopped() {
        if (done) {
            return;
        }
        if (blockingCall != null) {
            return; // the interrupted call reports itself (blocked)
        }
        Stop why = stop.get();
        end(why != null ? why : Stop.TIMEOUT);
    }

    private void fail(RuntimeException failure) {
        if (!done) {
            done = true;
            leaveWaiting();
            releaseGate();
            complete(failure);
        }
    }

    private void end(Stop why) {
        if (done) {
            return;
        }
        done = true;
        leaveWaiting();
        releaseGate();
        switch (why) {
            case TIMEOUT -> {
                attempt.end(AcquireOutcome.TIMED_OUT);
                result.complete(null);
            }
            case INTERRUPTED -> {
                attempt.end(AcquireOutcome.INTERRUPTED);
                result.completeExceptionally(new InterruptedException());
            }
            case CANCELLED -> {
                attempt.end(AcquireOutcome.CANCELLED);
                result.cancel(false);
            }
            case CLOSED -> {
                complete(client.closedException());
                return;
            }
        }
        client.acquisitionEnded(this);
    }

    private void complete(RuntimeException failure) {
        attempt.end(AcquireOutcome.FAILED);
        result.completeExceptionally(failure);
        client.acquisitionEnded(this);
    }

    /** Leaves the gate's line, the backend's line and the release hints; nothing of them stays. */
    private void leaveWaiting() {
        cancelRetry();
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
        if (gateQueued) {
            gateQueued = false;
            // If it was not in the line any more, the permit was handed to it: the gateOpened step
            // that is on its way gives it back, since this acquisition is done.
            local.gate.leave(this);
        }
        local.waiters.remove(this);
        if (subscription != null) {
            client.hints.unsubscribe(request, subscription);
            subscription = null;
        }
        if (entry != null) {
            client.hints.leave(request, entry);
            entry = null;
        }
    }

    private void releaseGate() {
        if (gateHeld) {
            gateHeld = false;
            local.gate.release();
        }
    }
}
