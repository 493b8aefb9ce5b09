package dev.baton.internal;

import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One grant from the backend as this client holds it: its hold count (reentrancy), its local
 * validity deadline, its renewal and its loss listeners. Shared by every {@link LeaseHandle} and by
 * the thread-bound {@code Lock} view of the thread that acquired it.
 *
 * <p>Locking: {@code state} guards the hold count, the state and the listeners, and is never held
 * across I/O. {@code renewing} is held while a renewal talks to the backend, so that a release can
 * wait for an in-flight renewal to finish before it releases: renewal never outlives unlock.
 * Scheduled renewals are not cancelled: they run on the client's {@link RenewalTimer}, which drops
 * or skips them once the grant is no longer held.
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

    private final ReentrantLock state = new ReentrantLock();
    private final ReentrantLock renewing = new ReentrantLock();
    private final List<Consumer<LockLostException>> listeners = new ArrayList<>();
    private volatile Grant grant;
    private volatile Status status = Status.HELD;
    private volatile long validUntilNanos;
    private volatile LockLostException lostCause;
    private int holds = 1;

    HeldGrant(
            ClientCore client,
            LocalLockState local,
            LockOptions options,
            Thread thread,
            Grant grant,
            long requestSentNanos) {
        this.client = client;
        this.local = local;
        this.options = options;
        this.thread = thread;
        this.grant = grant;
        this.validUntilNanos = requestSentNanos + grant.validityNanos(options.leaseTime());
    }

    Grant grant() {
        return grant;
    }

    Status status() {
        return status;
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
            throw new LockLostException(describe() + ": the lease time has elapsed without a successful renewal");
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
        state.lock();
        try {
            if (holds == 0) {
                return;
            }
            holds--;
            if (holds > 0) {
                return;
            }
            status = Status.RELEASED;
        } finally {
            state.unlock();
        }
        finish();
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
        finish();
    }

    private void finish() {
        local.holders.remove(thread, this);
        stopRenewal();
        try {
            boolean released = client.backend.release(grant);
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
                    options.leaseTime(),
                    e.toString());
        } finally {
            client.grantReleased(this);
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
            schedule(this::renewNow, renewInterval());
        } else {
            schedule(this::expireIfUnrenewed, validUntilNanos - client.ticker.nanoTime());
        }
    }

    /** A third of the lease, or half of what is left of a grant the backend made valid for less. */
    private long renewInterval() {
        long left = validUntilNanos - client.ticker.nanoTime();
        return Math.max(1, Math.min(options.leaseTime().toNanos() / 3, left / 2));
    }

    private void schedule(Runnable task, long delayNanos) {
        if (status == Status.HELD && !client.renewals.schedule(this, task, delayNanos)) {
            // The client is closing: it releases every grant itself.
            log.debug("{}: not scheduling renewal, the client is closing", describe());
        }
    }

    private void renewNow() {
        renewing.lock();
        try {
            if (status != Status.HELD) {
                return;
            }
            long sentAt = client.ticker.nanoTime();
            Optional<Grant> renewed;
            try {
                renewed = client.backend.renew(grant, options.leaseTime());
            } catch (RuntimeException e) {
                long remaining = validUntilNanos - client.ticker.nanoTime();
                if (remaining <= 0) {
                    markLost("it could not be renewed before its lease time (" + options.leaseTime() + ") ran out", e);
                } else {
                    log.warn(
                            "{}: renewal failed, retrying while the lease is still valid: {}",
                            describe(),
                            e.toString());
                    schedule(this::renewNow, Math.min(renewInterval() / 2, remaining));
                }
                return;
            }
            if (renewed.isEmpty()) {
                markLost(
                        "the backend no longer has this grant (it expired and may have been taken by another owner)",
                        null);
                return;
            }
            grant = renewed.get();
            validUntilNanos = sentAt + grant.validityNanos(options.leaseTime());
            log.trace("{}: renewed until {}", describe(), grant.expiresAt());
            schedule(this::renewNow, renewInterval());
        } catch (RuntimeException e) {
            log.error("{}: unexpected failure in renewal", describe(), e);
            markLost("renewal failed unexpectedly: " + e, e);
        } finally {
            renewing.unlock();
        }
    }

    private void expireIfUnrenewed() {
        long remaining = validUntilNanos - client.ticker.nanoTime();
        if (remaining > 0) {
            schedule(this::expireIfUnrenewed, remaining);
            return;
        }
        markLost("its lease time (" + options.leaseTime() + ") elapsed and auto-renewal is off", null);
    }

    void markLost(String why, Throwable cause) {
        List<Consumer<LockLostException>> toCall;
        LockLostException lost;
        state.lock();
        try {
            if (status != Status.HELD) {
                return;
            }
            lost = new LockLostException(
                    describe() + ": lease lost because " + why
                            + "; stop the protected work, the fencing token " + grant.fencingToken()
                            + " is stale",
                    cause);
            lostCause = lost;
            status = Status.LOST;
            toCall = List.copyOf(listeners);
            listeners.clear();
        } finally {
            state.unlock();
        }
        log.warn(lost.getMessage());
        toCall.forEach(listener -> notify(listener, lost));
    }

    void onLost(Consumer<LockLostException> listener) {
        if (listener == null) {
            throw new NullPointerException("listener");
        }
        state.lock();
        try {
            if (status != Status.LOST) {
                listeners.add(listener);
                return;
            }
        } finally {
            state.unlock();
        }
        notify(listener, lostCause);
    }

    private void notify(Consumer<LockLostException> listener, LockLostException lost) {
        try {
            listener.accept(lost);
        } catch (RuntimeException e) {
            log.warn("{}: an onLost listener failed", describe(), e);
        }
    }

    String describe() {
        return "Baton lock '" + local.name + "'" + (local.mode == dev.baton.spi.LockMode.SHARED ? " (read)" : "")
                + " on " + client.backend.name();
    }
}
