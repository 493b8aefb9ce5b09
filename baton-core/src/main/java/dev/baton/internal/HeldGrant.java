package dev.baton.internal;

import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One grant from the backend as this client holds it: its hold count (reentrancy), its local
 * validity deadline, its renewal and its loss listeners ({@link LossListeners}). Shared by every
 * {@link LeaseHandle} and by the thread-bound {@code Lock} view of the thread that acquired it.
 *
 * <p>Locking: {@code state} guards the hold count, the state and the validity deadline's updates,
 * and is never held across I/O. {@code renewing} is held while a renewal call
 * that includes this grant talks to the backend ({@link LeaseRenewer}), so that a release can wait
 * for an in-flight renewal to finish before it releases: renewal never outlives unlock. Scheduled
 * tasks are not cancelled: they run on the client's {@link RenewalTimer}, which drops or skips them
 * once the grant is no longer held.
 *
 * <p>Loss is judged by the clock: {@link #isValid()} turns false at the validity deadline (counted
 * from when the last successful renewal was sent), and the watchdog armed with each renewal reports
 * the loss to listeners then, even while that renewal call still hangs.
 *
 * <p>The client's {@link LockEvents} hear of the release and the loss with no lock held: a loss
 * found on a renewal thread, which holds {@code renewing}, is reported by the {@link LeaseRenewer}
 * once it let go ({@link #reportLoss}).
 *
 * <p>A client may hold tens of thousands of grants, so what only some of them need (loss listeners,
 * a latch for a second thread that waits for a release in progress) is made when first needed.
 */
final class HeldGrant {
    private static final Logger log = LoggerFactory.getLogger(HeldGrant.class);
    private static final VarHandle LOSS_LISTENERS;
    private static final VarHandle LOSS_UNREPORTED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            LOSS_LISTENERS = lookup.findVarHandle(HeldGrant.class, "lossListeners", LossListeners.class);
            LOSS_UNREPORTED = lookup.findVarHandle(HeldGrant.class, "lossUnreported", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    enum Status {
        HELD,
        LOST,
        RELEASED
    }

    final ClientCore client;
    final LocalLockState local;
    final LockOptions options;
    final Thread thread;
    /** The acquire call that took this grant: what the client's listeners hear its events with. */
    final LockEvents.Attempt acquisition;

    /*
     * Grants share a few state locks: each is held for a few field updates and never while another
     * grant's is taken, and a lock per grant would weigh as much as the rest of it. Not `renewing`:
     * a renewal call holds it across I/O, for many grants at once.
     */
    private static final ReentrantLock[] STATE_STRIPES = new ReentrantLock[64];
    private static final AtomicInteger NEXT_STRIPE = new AtomicInteger();

    static {
        for (int i = 0; i < STATE_STRIPES.length; i++) {
            STATE_STRIPES[i] = new ReentrantLock();
        }
    }

    private final ReentrantLock state = STATE_STRIPES[NEXT_STRIPE.getAndIncrement() & (STATE_STRIPES.length - 1)];
    private final ReentrantLock renewing = new ReentrantLock();
    /** Made by the first {@link #onLost} or the loss, whichever comes first ({@link #lossListeners()}). */
    private volatile LossListeners lossListeners;

    private volatile boolean lossUnreported;
    private final long grantedNanos;
    private volatile Grant grant;
    private volatile Status status = Status.HELD;
    private volatile long validUntilNanos;
    private volatile LockLostException lostCause;
    /** The lease time of the last grant or renewal: the options', or an extension's ({@link LeaseExtension}). */
    private volatile Duration leaseTime;

    private int holds = 1;
    /** Set under {@code state} when {@link #finish} is done: the backend answered and the local state is free. */
    private boolean finished;
    /** Made under {@code state} by a thread that waits for {@link #finish}; counted down when it is done. */
    private CountDownLatch finishWaiters;

    private volatile Thread finishing;

    /** Whether a watchdog task is queued, and when it is due: the timer thread's alone ({@link #armWatchdog}). */
    private boolean watchArmed;

    private long watchDueNanos;

    HeldGrant(
            ClientCore client,
            LocalLockState local,
            LockOptions options,
            Thread thread,
            Grant grant,
            long requestSentNanos,
            LockEvents.Attempt acquisition) {
        this.client = client;
        this.local = local;
        this.options = options;
        this.thread = thread;
        this.acquisition = acquisition;
        this.grant = grant;
        this.validUntilNanos = requestSentNanos + grant.validityNanos(options.leaseTime());
        this.leaseTime = options.leaseTime();
        this.grantedNanos = client.ticker.nanoTime();
    }

    private LossListeners lossListeners() {
        LossListeners current = lossListeners;
        if (current != null) {
            return current;
        }
        // Described only if a listener fails: building the text for every grant weighs on the hot path.
        LossListeners made = new LossListeners(this::describe);
        LossListeners witness = (LossListeners) LOSS_LISTENERS.compareAndExchange(this, null, made);
        return witness == null ? made : witness;
    }

    Grant grant() {
        return grant;
    }

    Status status() {
        return status;
    }

    /** What the backend was last asked to keep the grant for: the lease time, or the last extension. */
    Duration leaseTime() {
        return leaseTime;
    }

    /** {@code its lease time (PT3S)}, or after {@link dev.baton.Lease#extend} {@code its extended lease (PT6S)}. */
    String leaseDescription() {
        Duration current = leaseTime;
        return current.equals(options.leaseTime())
                ? "its lease time (" + current + ")"
                : "its extended lease (" + current + ", from the last Lease.extend)";
    }

    boolean isValid() {
        return status == Status.HELD && client.ticker.nanoTime() - validUntilNanos < 0;
    }

    int holdCount() {
        state.lock();
        try {
            return holds;
        } finally {
            state.unlock();
        }
    }

    void checkValid() {
        Status current = status;
        if (current == Status.LOST) {
            throw new LockLostException(lostCause.getMessage(), lostCause);
        }
        if (current == Status.RELEASED) {
            throw new LockLostException(describe() + ": the lease has been released");
        }
        if (client.ticker.nanoTime() - validUntilNanos >= 0) {
            throw new LockLostException(
                    describe() + ": " + leaseDescription() + " has elapsed without a successful" + " renewal");
        }
    }

    /**
     * Adds a reentrant hold for the thread that holds this grant.
     *
     * @return false if the grant was released meanwhile (the caller then acquires afresh)
     * @throws LockLostException if the grant was lost: the holder must release its holds first
     */
    boolean addHold() {
        state.lock();
        try {
            if (status == Status.RELEASED || holds == 0) {
                return false;
            }
            if (status == Status.LOST) {
                throw new LockLostException(
                        lostCause.getMessage() + "; release the lost holds (unlock/close) before acquiring again",
                        lostCause);
            }
            holds++;
            return true;
        } finally {
            state.unlock();
        }
    }

    /** Removes one hold; the last one stops renewal and releases on the backend before returning. */
    void releaseHold() {
        boolean wasHeld;
        boolean last;
        state.lock();
        try {
            last = holds > 0;
            if (!last) {
                wasHeld = false;
            } else {
                holds--;
                if (holds > 0) {
                    return;
                }
                wasHeld = status == Status.HELD;
                status = Status.RELEASED;
            }
        } finally {
            state.unlock();
        }
        if (!last) {
            awaitReleased(); // released already, maybe still in progress on another thread
            return;
        }
        finish(wasHeld);
    }

    /** Releases regardless of the hold count (client close). */
    void forceRelease() {
        state.lock();
        try {
            if (holds == 0) {
                return;
            }
            holds = 0;
            status = Status.RELEASED;
        } finally {
            state.unlock();
        }
        finish(false);
    }

    /**
     * Releases on the backend. With {@code reportIfGone} (the holder released a grant it believed
     * held), a backend that no longer had the grant means the lease ran out under the holder (a pause,
     * a cut-off past the lease) before any renewal or the watchdog could say so: the holder's onLost
     * listeners hear it now, so that no loss goes unreported.
     */
    private void finish(boolean reportIfGone) {
        finishing = Thread.currentThread();
        if (thread != null) {
            local.removeHolder(this);
        }
        stopRenewal();
        try {
            boolean released = client.backend.release(grant);
            if (!released && reportIfGone) {
                reportGoneAtRelease();
            }
            if (log.isDebugEnabled()) {
                log.debug(
                        released
                                ? "{}: released"
                                : "{}: nothing to release on the backend (already expired or taken over)",
                        describe());
            }
        } catch (RuntimeException e) {
            log.warn(
                    "{}: release failed; the backend frees it when its lease time ({}) runs out: {}",
                    describe(),
                    leaseTime,
                    e.toString());
        } finally {
            long heldNanos = client.ticker.nanoTime() - grantedNanos;
            try {
                client.grantReleased(this);
                client.events.leaseReleased(acquisition, heldNanos);
            } finally {
                CountDownLatch waiters;
                state.lock();
                try {
                    finished = true;
                    waiters = finishWaiters;
                } finally {
                    state.unlock();
                }
                if (waiters != null) {
                    waiters.countDown();
                }
            }
        }
    }

    /**
     * Returns once a release another thread started has finished, so that a close() that found the
     * lease already being released returns, as the first one does, with the lock free in this client
     * (its gate open to the next acquisition). Bounded by the release's own operation timeout.
     */
    void awaitReleased() {
        if (status != Status.RELEASED || finishing == Thread.currentThread()) {
            return;
        }
        CountDownLatch waiters;
        state.lock();
        try {
            if (finished) {
                return;
            }
            if (finishWaiters == null) {
                finishWaiters = new CountDownLatch(1);
            }
            waiters = finishWaiters;
        } finally {
            state.unlock();
        }
        try {
            if (!waiters.await(options.operationTimeout().toNanos() * 2, TimeUnit.NANOSECONDS)) {
                log.debug("{}: a release in another thread is still running", describe());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void stopRenewal() {
        // The status is no longer HELD, so no renewal starts any more; wait for one already talking
        // to the backend (it sees the status afterwards and stops).
        renewing.lock();
        renewing.unlock();
    }

    void scheduleFirst() {
        if (options.autoRenew()) {
            long now = client.ticker.nanoTime();
            scheduleRenewal(now, renewInterval(now));
        } else {
            schedule(RenewalTimer.Kind.EXPIRE, validUntilNanos - client.ticker.nanoTime(), 0);
        }
    }

    /**
     * A third of the lease, or half of what is left at {@code fromNanos} of a grant the backend made
     * valid for less.
     */
    private long renewInterval(long fromNanos) {
        long left = validUntilNanos - fromNanos;
        return Math.max(1, Math.min(options.leaseTime().toNanos() / 3, left / 2));
    }

    /**
     * Renews {@code intervalNanos} after {@code fromNanos}, or up to half that interval earlier
     * together with other grants ({@link RenewalTimer} explains why half).
     */
    private void scheduleRenewal(long fromNanos, long intervalNanos) {
        long delayNanos = fromNanos + intervalNanos - client.ticker.nanoTime();
        schedule(RenewalTimer.Kind.RENEW, delayNanos, intervalNanos / 2);
    }

    private void schedule(RenewalTimer.Kind kind, long delayNanos, long aheadNanos) {
        if (status == Status.HELD && !client.renewals.schedule(this, kind, delayNanos, aheadNanos)) {
            // The client is closing: it releases every grant itself.
            log.debug("{}: not scheduling renewal, the client is closing", describe());
        }
    }

    /**
     * Arms the watchdog for a renewal about to be sent: at the current validity deadline the grant
     * is reported lost unless a renewal moved the deadline first, however long the call hangs. On
     * the timer thread only.
     *
     * <p>One watchdog task per grant, not one per renewal: a task already due at or before the
     * deadline stays, and when it finds the deadline moved it looks again at the new one ({@link
     * #watchdog}). A task per renewal would keep up to three per grant queued (a renewal every third
     * of the lease, each watching a whole lease ahead), which weighs on a client holding many.
     */
    void armWatchdog() {
        long deadline = validUntilNanos;
        if (watchArmed && deadline - watchDueNanos >= 0) {
            return;
        }
        watchArmed = true;
        watchDueNanos = deadline;
        schedule(RenewalTimer.Kind.WATCH, deadline - client.ticker.nanoTime(), 0);
    }

    /**
     * The watchdog's check, on the timer thread: lost if the validity deadline has passed; if a
     * renewal moved it meanwhile, looks again then.
     */
    void watchdog() {
        long now = client.ticker.nanoTime();
        if (now - validUntilNanos >= 0) {
            markLost(
                    "it was not renewed within its validity (lease time " + leaseTime
                            + "); the renewal did not answer in time",
                    null,
                    true);
            return;
        }
        if (now - watchDueNanos < 0) {
            return; // a task armed for a later deadline that an extension shortened: the newer one looks
        }
        watchDueNanos = validUntilNanos;
        schedule(RenewalTimer.Kind.WATCH, watchDueNanos - now, 0);
    }

    /**
     * Takes this grant for a renewal call: false if it is no longer held, or being released right
     * now. While taken, a release waits ({@link #stopRenewal}), so renewal never outlives release.
     * Only the thread that took it may {@link #endRenewal}.
     */
    boolean beginRenewal() {
        if (!renewing.tryLock()) {
            if (status == Status.HELD && options.autoRenew()) {
                // Taken by an extension (or a renewal still finishing): renew later, so the chain goes on.
                long now = client.ticker.nanoTime();
                scheduleRenewal(now, renewInterval(now));
            }
            return false;
        }
        if (status != Status.HELD) {
            renewing.unlock();
            return false;
        }
        return true;
    }

    void endRenewal() {
        renewing.unlock();
    }

    /** Takes this grant for an extension: waits for a renewal in flight ({@link #endRenewal} after). */
    void beginExtension() {
        renewing.lock();
    }

    /** The loss's exception once lost, else null. */
    LockLostException lostCause() {
        return status == Status.LOST ? lostCause : null;
    }

    /**
     * A renewal sent at {@code sentAt} extended the grant. Validity counts from the send time. An
     * answer that arrives after the validity deadline does not bring the grant back: by then
     * isValid() has turned false and the watchdog reports (or has reported) the loss, so the grant
     * stays lost, and the renewed grant is released best-effort so that another owner need not wait
     * a whole lease time for it.
     */
    boolean renewed(Grant renewed, long sentAt) {
        return renewed(renewed, sentAt, options.leaseTime(), true);
    }

    /**
     * Like {@link #renewed}, for an extension by {@code leaseTime} ({@link LeaseExtension}): the
     * renewal schedule is left as it is, and a grant without auto-renewal extended to a sooner
     * deadline gets an expiry task at that deadline.
     */
    boolean renewed(Grant renewed, long sentAt, Duration leaseTime, boolean byRenewer) {
        state.lock();
        try {
            long now = client.ticker.nanoTime();
            if (status == Status.HELD && now - validUntilNanos < 0) {
                long previous = validUntilNanos;
                grant = renewed;
                validUntilNanos = sentAt + renewed.validityNanos(leaseTime);
                this.leaseTime = leaseTime;
                log.trace("{}: renewed until {}", describe(), renewed.expiresAt());
                if (byRenewer) {
                    // Counted from the send time, like the validity: grants renewed in one call stay
                    // due together however long each answer took.
                    scheduleRenewal(sentAt, renewInterval(sentAt));
                } else if (!options.autoRenew() && validUntilNanos - previous < 0) {
                    schedule(RenewalTimer.Kind.EXPIRE, validUntilNanos - now, 0);
                }
                return true;
            }
        } finally {
            state.unlock();
        }
        markLost(
                "its " + (byRenewer ? "renewal" : "extension") + " answered only after its validity had run out",
                null,
                false);
        if (status == Status.LOST) {
            try {
                client.backend.release(renewed);
            } catch (RuntimeException e) {
                log.debug("{}: releasing the late-renewed grant failed: {}", describe(), e.toString());
            }
        }
        return false;
    }

    /** The backend no longer has this grant. */
    void renewalRefused() {
        markLost(
                "the backend no longer has this grant (it expired and may have been taken by another owner, or an operator broke it with a forced release)",
                null);
    }

    /** A renewal call failed for this grant: retried while it is still valid. */
    void renewalFailed(RuntimeException failure) {
        long remaining = validUntilNanos - client.ticker.nanoTime();
        if (remaining <= 0) {
            markLost("it could not be renewed before its lease time (" + leaseTime + ") ran out", failure);
            return;
        }
        log.warn("{}: renewal failed, retrying while the lease is still valid: {}", describe(), failure.toString());
        schedule(RenewalTimer.Kind.RENEW, Math.min(renewInterval(client.ticker.nanoTime()) / 2, remaining), 0);
    }

    void expireIfUnrenewed() {
        long remaining = validUntilNanos - client.ticker.nanoTime();
        if (remaining > 0) {
            schedule(RenewalTimer.Kind.EXPIRE, remaining, 0);
            return;
        }
        markLost(leaseDescription() + " elapsed and auto-renewal is off", null);
    }

    void markLost(String why, Throwable cause) {
        markLost(why, cause, false);
    }

    /** Reports the loss once; with {@code onlyIfExpired}, only if the deadline has still passed. */
    private void markLost(String why, Throwable cause, boolean onlyIfExpired) {
        LockLostException lost;
        state.lock();
        try {
            if (status != Status.HELD || (onlyIfExpired && client.ticker.nanoTime() - validUntilNanos < 0)) {
                return;
            }
            lost = new LockLostException(
                    describe() + ": lease lost because " + why
                            + "; stop the protected work, the fencing token " + grant.fencingToken()
                            + " is stale",
                    cause);
            lostCause = lost;
            status = Status.LOST;
        } finally {
            state.unlock();
        }
        log.warn(lost.getMessage());
        lossListeners().tell(lost, true);
        lossUnreported = true;
        if (!renewing.isHeldByCurrentThread()) {
            reportLoss();
        }
    }

    /** Tells the client's listeners of the loss, once; the renewal thread calls it after it let go. */
    void reportLoss() {
        if (LOSS_UNREPORTED.compareAndSet(this, true, false)) {
            client.events.leaseLost(acquisition, lostCause);
        }
    }

    private void reportGoneAtRelease() {
        LockLostException lost = new LockLostException(describe()
                + ": lease lost: at release the backend no longer had it (its lease time ran out, a pause or a"
                + " cut-off outlasted it) and another owner may have held it meanwhile; work done under fencing"
                + " token " + grant.fencingToken() + " may be stale");
        log.warn(lost.getMessage());
        lossListeners().tell(lost, false);
        client.events.leaseLost(acquisition, lost);
    }

    void onLost(Consumer<LockLostException> listener) {
        lossListeners().add(listener);
    }

    String describe() {
        return Describe.lock(local.name, local.mode, local.permits, client.backend.name());
    }
}
