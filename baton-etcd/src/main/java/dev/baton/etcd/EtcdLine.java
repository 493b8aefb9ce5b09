package dev.baton.etcd;

import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.LockUnavailableException;
import dev.baton.etcd.EtcdLockQueue.Entered;
import dev.baton.etcd.EtcdSession.ClientLease;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import io.etcd.jetcd.ByteSequence;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The line of waiters as the core drives it ({@link WaitQueue}), for locks ({@link EtcdQueueTurn})
 * and semaphore permits ({@link EtcdPermits}) alike. No thread waits: entering puts the key and lists
 * the queue in one transaction (granted at once when nothing blocks it), and sets the watches when
 * something does; the watches record what they see and wake the waiter, whose next attempt decides on
 * that record, reading etcd only when the record cannot tell. So an attempt after no event makes no
 * call, and a wake that goes astray only delays the waiter until the core's next fallback attempt.
 *
 * <p>Interrupts: the blocking API makes these calls on its caller's thread. An interrupt during an
 * attempt's reads ends the attempt empty with the thread's interrupt flag set, for the core to stop
 * the wait (and leave the line) as for an interrupt between two attempts; an interrupt while the key
 * is put is reported as {@link LockUnavailableException}, and the key is deleted in the background.
 */
final class EtcdLine implements WaitQueue {
    private static final Logger log = LoggerFactory.getLogger(EtcdLine.class);
    private static final Runnable NO_WAKE = () -> {};

    private final EtcdCalls calls;
    private final EtcdLockQueue queue;
    private final EtcdPermits permits;
    private final EtcdSession session;
    private final EtcdKeys keys;

    EtcdLine(EtcdCalls calls, EtcdSession session, EtcdLockQueue queue, EtcdPermits permits, EtcdKeys keys) {
        this.calls = calls;
        this.session = session;
        this.queue = queue;
        this.permits = permits;
        this.keys = keys;
    }

    @Override
    public Entry enter(LockRequest request, Runnable wake) {
        try {
            return join(request, wake, true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw interrupted(request, e);
        }
    }

    /** One look, no wait: puts the key, and deletes it again unless it holds at once. */
    Optional<Grant> tryAcquire(LockRequest request) {
        Waiter waiter;
        try {
            waiter = join(request, NO_WAKE, false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw interrupted(request, e);
        }
        if (waiter.grantedOnEntry().isEmpty()) {
            waiter.leave();
        }
        return waiter.grantedOnEntry();
    }

    private LockUnavailableException interrupted(LockRequest request, InterruptedException e) {
        return new LockUnavailableException(calls.describe(request) + ": interrupted while talking to etcd; retry", e);
    }

    /**
     * Deletes, in the background, the key an attempt may have put: its transaction may still be
     * applied after its caller gave up, so the deletes go on until one is sent an operation timeout
     * later. Returns at once; harmless when the attempt put nothing.
     */
    void abandon(LockRequest request) {
        ByteSequence key = queue.keyOf(request.ownerId());
        if (key != null) {
            session.deleteInBackground(
                    request.name(), key, null, calls.operationTimeout().toNanos());
        }
    }

    private Waiter join(LockRequest request, Runnable wake, boolean waits) throws InterruptedException {
        boolean permit = request.kind() == LockKind.PERMIT;
        Entered entered;
        try {
            entered = permit ? permits.enter(request, calls.deadline()) : queue.enter(request, calls.deadline());
        } catch (InterruptedException | RuntimeException e) {
            // The transaction may have reached etcd: remove the key it may have put.
            abandon(request);
            throw e;
        }
        EtcdQueueWatch watch = new EtcdQueueWatch(wake);
        BiFunction<Entered, EtcdQueueWatch, EtcdPermits.Turn> turns = permit
                ? (in, w) -> permits.turn(request, in, w)
                : (in, w) ->
                        new EtcdQueueTurn(calls, queue, keys, request.name(), in, request.mode() == LockMode.SHARED, w);
        Waiter waiter = new Waiter(request, entered, watch, turns.apply(entered, watch));
        return waiter.first(waits);
    }

    /** One request's key in line; the core makes one call of it at a time, so its state needs no lock. */
    private final class Waiter implements Entry {
        private final LockRequest request;
        private final Entered entered;
        private final EtcdQueueWatch watch;
        private final EtcdPermits.Turn turn;
        private Optional<Grant> grantedOnEntry = Optional.empty();

        Waiter(LockRequest request, Entered entered, EtcdQueueWatch watch, EtcdPermits.Turn turn) {
            this.request = request;
            this.entered = entered;
            this.watch = watch;
            this.turn = turn;
            queue.track(watch); // from now on a lost lease or a close wakes it
        }

        /** The first look, right after the key was put; a failure deletes the key before it is thrown. */
        Waiter first(boolean waits) throws InterruptedException {
            try {
                grantedOnEntry = look(waits);
                return this;
            } catch (InterruptedException e) {
                if (waits) {
                    // The key is in the queue: the core sees the interrupt and leaves the line.
                    Thread.currentThread().interrupt();
                    return this;
                }
                leave();
                throw e;
            } catch (RuntimeException e) {
                leave();
                throw e;
            }
        }

        private Optional<Grant> look(boolean waits) throws InterruptedException {
            if (!turn.holds(waits)) {
                return Optional.empty();
            }
            Grant grant = grant();
            stopWatching();
            return Optional.of(grant);
        }

        /**
         * The grant of the key that holds: valid for the lease time, or as long as etcd keeps the
         * lease for sure, whichever is sooner, counted from now (the core counts it from when it made
         * the call, which is earlier). When keep-alives were late, one is sent first.
         */
        private Grant grant() throws InterruptedException {
            ClientLease lease = entered.lease();
            long now = System.nanoTime();
            if (lease.aliveUntilNanos() - now <= 0) {
                // Keep-alives were late: learn how long etcd keeps the lease before handing out the grant.
                session.keepAlive(calls.describe(request), lease, calls.deadline());
                now = System.nanoTime();
            }
            EtcdHeldKey held = session.hold(
                    request.name(),
                    request.kind() == LockKind.PERMIT ? request.permits() : 0,
                    entered.key(),
                    entered.revision(),
                    lease,
                    request.leaseTime());
            long validity = Math.min(request.leaseTime().toNanos(), lease.aliveUntilNanos() - now);
            return Grant.of(request, entered.revision(), Instant.now().plus(request.leaseTime()))
                    .withBackendState(held)
                    .withValidity(Duration.ofNanos(Math.max(0, validity)));
        }

        private void stopWatching() {
            queue.untrack(watch);
            watch.close();
        }

        @Override
        public Optional<Grant> grantedOnEntry() {
            return grantedOnEntry;
        }

        @Override
        public Optional<Grant> attempt() {
            try {
                return look(true);
            } catch (InterruptedException e) {
                // Only what a look may repeat was cut short: the core sees the flag and stops.
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }

        /**
         * Deletes the key, even when the thread was interrupted; if etcd cannot be reached, the session
         * deletes it in the background until it can, so this only logs.
         */
        @Override
        public void leave() {
            stopWatching();
            boolean interrupted = Thread.interrupted();
            try {
                queue.delete(request.name(), calls.describe(request), entered.key(), entered.lease(), calls.deadline());
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (RuntimeException e) {
                if (calls.isClosed()) {
                    log.debug("{}: deleting the key after close failed: {}", calls.describe(request), e.toString());
                } else {
                    log.warn(
                            "{}: could not delete the key of an attempt that ended without a grant ({}); deleting it"
                                    + " in the background",
                            calls.describe(request),
                            e.getMessage());
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
