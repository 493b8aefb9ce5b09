package dev.baton.internal;

import dev.baton.LockListener.AcquireOutcome;
import dev.baton.spi.Grant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One acquisition that is not reentrant, from the local gate to the grant or to its end without one:
 * the one implementation of waiting behind the blocking and the asynchronous API.
 *
 * <p>It is a sequence of short steps run by its {@link Driver}, one at a time: enter the gate, then
 * wait on the backend in the form the backend waits in ({@link BackendWait}). Between two steps it
 * holds no thread. Events from other threads (a wake, a retry or deadline timer, a cancel, the client
 * closing) only schedule steps ({@link #poke()}, {@link #stop}), so every field but the few atomics
 * below is touched by one step at a time and needs no lock.
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

    private final AtomicReference<Stop> stop = new AtomicReference<>();

    // Touched by steps only, one at a time.
    private boolean done;
    private boolean gateQueued;
    private boolean gateHeld;
    private ScheduledFuture<?> deadline;
    private boolean interruptSwallowed;
    /** Past the gate: the time on the backend, or null before. */
    private volatile BackendWait backend;

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
        driver.onFailure(this::crashed);
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
            deadline = client.waits.schedule(() -> stop(Stop.TIMEOUT), timeoutNanos);
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
            BackendWait onBackend = backend;
            if (onBackend != null) {
                onBackend.cancelBlockingCall(why == Stop.TIMEOUT);
            }
            driver.execute(this::stopped);
        }
    }

    /**
     * Why a timed-out wait got no grant, when it was not another owner ({@link BackendWait#timeoutCause});
     * null when a holder is the reason, or the wait never got past the local gate.
     */
    String timeoutCause() {
        BackendWait onBackend = backend;
        return onBackend == null ? null : onBackend.timeoutCause();
    }

    /** Why it was asked to stop; null while it goes on. */
    Stop stopReason() {
        return stop.get();
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

    /** A release in this client: an acquisition waiting on the backend attempts at once; from any thread. */
    void poke() {
        BackendWait onBackend = backend;
        if (onBackend != null) {
            onBackend.poke();
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
            BackendWait wait = new BackendWait(this, client, lock, driver, client.request(lock, caller));
            backend = wait;
            if (timeoutNanos == 0) {
                wait.tryOnce();
                return;
            }
            local.addWaiter(this);
            wait.begin();
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    boolean done() {
        return done;
    }

    /** The acquisition has to wait; reported to the listeners once. */
    void waiting() {
        attempt.waiting();
    }

    /**
     * The blocking caller's call was interrupted: true if that ends the wait (interruptible), false if
     * the wait goes on and the caller sets its interrupt flag again at the end.
     */
    boolean interruptedInCall() {
        if (interruptible) {
            stop.compareAndSet(null, Stop.INTERRUPTED);
            return true;
        }
        interruptSwallowed = true;
        return false;
    }

    /** Ends with a timeout if the time is up; the deadline timer does the same when it fires. */
    boolean timedOut() {
        if (timeoutNanos >= 0 && remainingNanos() <= 0) {
            end(Stop.TIMEOUT);
            return true;
        }
        return false;
    }

    /** The time left, or {@code Long.MIN_VALUE} for a wait without limit. */
    long remainingNanos() {
        return timeoutNanos < 0 ? Long.MIN_VALUE : timeoutNanos - (client.ticker.nanoTime() - start);
    }

    /** A grant for this acquisition, counted valid from {@code sentAt} (its request's send time). */
    void granted(Grant grant, long sentAt) {
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

    void stopped() {
        if (done) {
            return;
        }
        BackendWait onBackend = backend;
        if (onBackend != null && onBackend.blocking()) {
            return; // the interrupted call reports itself
        }
        Stop why = stop.get();
        end(why != null ? why : Stop.TIMEOUT);
    }

    void fail(RuntimeException failure) {
        if (!done && interruptible && driver.onCallerThread() && Thread.interrupted()) {
            // The caller's interrupt cut a backend call short, which the backend reported as a
            // failure after cleaning up: to this caller it is the interrupt it asked to be told.
            stop.compareAndSet(null, Stop.INTERRUPTED);
            end(Stop.INTERRUPTED);
            return;
        }
        if (failure instanceof RejectedExecutionException && client.isClosed()) {
            // A step scheduled its next attempt as the client closed: to the caller, the client closed.
            stop.compareAndSet(null, Stop.CLOSED);
            end(Stop.CLOSED);
            return;
        }
        if (finish()) {
            complete(failure);
        }
    }

    void end(Stop why) {
        if (!finish()) {
            return;
        }
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

    /**
     * A step failed on what it did not foresee ({@link Driver#onFailure}): the acquisition ends with
     * that failure instead of leaving its caller waiting. A {@link LinkageError} (a backend's client
     * library on a class path it was not built for) is reported as the backend being unavailable.
     */
    void crashed(Throwable failure) {
        if (done) {
            return;
        }
        try {
            finish();
        } finally {
            complete(BackendAttempts.asSeenByCaller(lock.describe(), failure));
        }
    }

    /** Marks it done, then leaves the gate and every line it waits in; false if it was done already. */
    private boolean finish() {
        if (done) {
            return false;
        }
        done = true;
        leaveWaiting();
        releaseGate();
        return true;
    }

    private void complete(Throwable failure) {
        attempt.end(AcquireOutcome.FAILED);
        result.completeExceptionally(failure);
        client.acquisitionEnded(this);
    }

    /** Leaves the gate's line, the backend's line and the release hints; nothing of them stays. */
    private void leaveWaiting() {
        BackendWait onBackend = backend;
        if (onBackend != null) {
            onBackend.leave();
        }
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
        local.removeWaiter(this);
    }

    private void releaseGate() {
        if (gateHeld) {
            gateHeld = false;
            local.gate.release();
        }
    }
}
