package dev.baton.internal;

import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
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
 * once it let go ({@link LossListeners#report}).
 *
 * <p>A client may hold tens of thousands of grants, so what only some of them need (loss listeners,
 * a latch for a second thread that waits for a release in progress) is made when first needed, and
 * what acts on a grant without being its state lives in the client's objects or in static helpers,
 * not in objects per grant: the schedule and the watchdog in the {@link RenewalTimer}, the renewal's
 * answers in the {@link LeaseRenewer}, the release on the backend in {@link GrantRelease}, the
 * loss's telling in {@link LossListeners}. This class keeps the state and its transitions.
 */
final class HeldGrant {
    private static final Logger log = LoggerFactory.getLogger(HeldGrant.class);

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
    /** Made by the first {@link #onLost} or the loss, whichever comes first ({@link LossListeners#of}). */
    volatile LossListeners lossListeners;
    /** Set once the loss is told to the onLost listeners, until the client's listeners hear it. */
    volatile boolean lossUnreported;

    final long grantedNanos;
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

    /** Whether a watchdog task is queued, and when it is due: the timer thread's alone ({@link RenewalTimer}). */
    boolean watchArmed;

    long watchDueNanos;

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

    /** When the grant stops being valid, on the client's ticker, unless renewed first. */
    long validUntilNanos() {
        return validUntilNanos;
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

    /** Releases on the backend ({@link GrantRelease}), then wakes the threads waiting for it. */
    private void finish(boolean reportIfGone) {
        finishing = Thread.currentThread();
        try {
            GrantRelease.release(this, reportIfGone);
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

    /** Returns once no renewal or extension of this grant talks to the backend any more. */
    void stopRenewal() {
        // The status is no longer HELD, so no renewal starts any more; wait for one already talking
        // to the backend (it sees the status afterwards and stops).
        renewing.lock();
        renewing.unlock();
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
                client.renewals.scheduleRenewal(this, client.ticker.nanoTime());
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
     * Takes a renewal's (or an extension's) answer: the grant is now {@code renewed}, valid from
     * {@code sentAt} for {@code leaseTime} as the backend counts it. Only while the grant is held and
     * still valid: an answer after the validity deadline does not bring it back ({@link LeaseRenewer}).
     * Called with the grant taken for renewal ({@link #beginRenewal}, {@link #beginExtension}), so
     * nothing else moves the deadline meanwhile.
     */
    boolean takeRenewal(Grant renewed, long sentAt, Duration leaseTime) {
        state.lock();
        try {
            if (status != Status.HELD || client.ticker.nanoTime() - validUntilNanos >= 0) {
                return false;
            }
            grant = renewed;
            validUntilNanos = sentAt + renewed.validityNanos(leaseTime);
            this.leaseTime = leaseTime;
        } finally {
            state.unlock();
        }
        log.trace("{}: renewed until {}", describe(), renewed.expiresAt());
        return true;
    }

    void markLost(String why, Throwable cause) {
        markLost(why, cause, false);
    }

    /** The watchdog's loss: reported only if the validity deadline has still passed. */
    void markLostIfExpired(String why) {
        markLost(why, null, true);
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
        LossListeners.lost(this, lost, !renewing.isHeldByCurrentThread());
    }

    void onLost(Consumer<LockLostException> listener) {
        LossListeners.of(this).add(listener);
    }

    String describe() {
        return Describe.lock(local.name, local.mode, local.permits, client.backend.name());
    }
}
