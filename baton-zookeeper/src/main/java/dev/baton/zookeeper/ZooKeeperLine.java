package dev.baton.zookeeper;

import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import dev.baton.zookeeper.ZooKeeperHeldNodes.HeldNode;
import dev.baton.zookeeper.ZooKeeperQueueProtocol.Entered;
import dev.baton.zookeeper.ZooKeeperQueueProtocol.QueueNode;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The line of waiters as the core drives it ({@link WaitQueue}), for every kind of request: a lock's
 * queue node ({@link ZooKeeperQueueTurn}), or a semaphore's mutex and lease nodes ({@link
 * ZooKeeperPermits}). No thread waits: entering joins the queue in one round trip (granted at once
 * when the node is alone), lists the queue and sets the watches when it is not; the watches record
 * what they see and wake the waiter, whose next attempt decides on that record, listing again only
 * when the record cannot tell. So an attempt after no event makes no call, and a wake that goes
 * astray only delays the waiter until the core's next fallback attempt.
 *
 * <p>Interrupts: the blocking API makes these calls on its caller's thread. An interrupt during an
 * attempt's reads ends the attempt empty with the thread's interrupt flag set, for the core to stop
 * the wait (and leave the line) as for an interrupt between two attempts; an interrupt while the node
 * is created is reported as {@link LockUnavailableException}, after the node was removed.
 */
final class ZooKeeperLine implements WaitQueue {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLine.class);
    private static final Runnable NO_WAKE = () -> {};

    private final ZooKeeperCalls calls;
    private final ZooKeeperQueueProtocol queue;
    private final ZooKeeperHeldNodes held;
    private final ZooKeeperSessionBound bound;
    private final ZooKeeperPermits permits;
    private final String root;

    ZooKeeperLine(
            ZooKeeperCalls calls,
            ZooKeeperQueueProtocol queue,
            ZooKeeperHeldNodes held,
            ZooKeeperSessionBound bound,
            ZooKeeperPermits permits,
            String root) {
        this.calls = calls;
        this.queue = queue;
        this.held = held;
        this.bound = bound;
        this.permits = permits;
        this.root = root;
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

    /** One look, no wait: joins, and leaves again unless the request holds at once. */
    Optional<Grant> tryAcquire(LockRequest request) {
        Waiter waiter;
        try {
            waiter = join(request, NO_WAKE, false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw interrupted(request, e);
        }
        if (waiter.grantedOnEntry().isEmpty()) {
            waiter.leaveQuietly();
        }
        return waiter.grantedOnEntry();
    }

    private LockUnavailableException interrupted(LockRequest request, InterruptedException e) {
        return new LockUnavailableException(
                calls.describe(request.name()) + ": interrupted while talking to ZooKeeper; retry", e);
    }

    private Waiter join(LockRequest request, Runnable wake, boolean waits) throws InterruptedException {
        if (request.kind() == LockKind.PERMIT) {
            return permits.join(request, wake, waits);
        }
        String lockPath = ZooKeeperLockPaths.lockPath(root, request.name());
        Entered entered = queue.enter(request, lockPath, calls.deadline());
        ZooKeeperOwnSession session = new ZooKeeperOwnSession(calls, request.name(), entered.own());
        ZooKeeperQueueWatch signal = new ZooKeeperQueueWatch(wake);
        ZooKeeperQueueTurn turn = new ZooKeeperQueueTurn(
                calls, request.name(), lockPath, entered, request.mode() == LockMode.SHARED, session, signal);
        return new LockWaiter(request, entered.own(), session, signal, turn).first(waits);
    }

    /**
     * One request in line, whatever its nodes: it decides in {@link #look} and removes its nodes in
     * {@link #remove}; this class turns those into the core's calls. The core makes one call of an
     * entry at a time, so the state of an entry needs no lock.
     */
    abstract static class Waiter implements Entry {
        final ZooKeeperCalls calls;
        final ZooKeeperQueueProtocol queue;
        /** The lock or semaphore as messages name it. */
        final String subject;

        final ZooKeeperQueueWatch signal;
        private Optional<Grant> grantedOnEntry = Optional.empty();

        Waiter(ZooKeeperCalls calls, ZooKeeperQueueProtocol queue, String subject, ZooKeeperQueueWatch signal) {
            this.calls = calls;
            this.queue = queue;
            this.subject = subject;
            this.signal = signal;
            queue.track(signal); // from now on a close or a session loss wakes it
        }

        /**
         * The grant if the request holds now, after which the entry is done; empty while it waits
         * (with {@code waits}, watches are set that wake it).
         */
        abstract Optional<Grant> look(boolean waits) throws InterruptedException;

        /** Deletes the nodes the request created. */
        abstract void remove() throws InterruptedException;

        /** The first look, right after joining; a failure removes the nodes before it is thrown. */
        final Waiter first(boolean waits) throws InterruptedException {
            try {
                grantedOnEntry = look(waits);
                return this;
            } catch (InterruptedException e) {
                if (waits) {
                    // The node is in the queue: the core sees the interrupt and leaves the line.
                    Thread.currentThread().interrupt();
                    return this;
                }
                leaveQuietly();
                throw e;
            } catch (RuntimeException e) {
                leaveQuietly();
                throw e;
            }
        }

        /** The entry holds: the watcher is no longer woken by the backend. */
        final void done() {
            queue.untrack(signal);
        }

        @Override
        public final Optional<Grant> grantedOnEntry() {
            return grantedOnEntry;
        }

        @Override
        public final Optional<Grant> attempt() {
            try {
                return look(true);
            } catch (InterruptedException e) {
                // Only what a look may repeat was cut short: the core sees the flag and stops.
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }

        @Override
        public final void leave() {
            queue.untrack(signal);
            boolean interrupted = Thread.interrupted();
            try {
                remove();
            } catch (InterruptedException e) {
                interrupted = true;
                throw new LockUnavailableException(
                        calls.describe(subject) + ": interrupted while leaving the queue; ZooKeeper removes its"
                                + " node when the session ends",
                        e);
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        final void leaveQuietly() {
            try {
                leave();
            } catch (RuntimeException e) {
                log.warn(
                        "{}: could not remove the queue node of an attempt; ZooKeeper removes it when the session"
                                + " ends: {}",
                        calls.describe(subject),
                        e.toString());
            }
        }
    }

    /** A lock's node: it holds by the queue's rules ({@link ZooKeeperQueueTurn}). */
    private final class LockWaiter extends Waiter {
        private final LockRequest request;
        private final QueueNode own;
        private final ZooKeeperOwnSession session;
        private final ZooKeeperQueueTurn turn;

        LockWaiter(
                LockRequest request,
                QueueNode own,
                ZooKeeperOwnSession session,
                ZooKeeperQueueWatch signal,
                ZooKeeperQueueTurn turn) {
            super(ZooKeeperLine.this.calls, ZooKeeperLine.this.queue, request.name(), signal);
            this.request = request;
            this.own = own;
            this.session = session;
            this.turn = turn;
        }

        @Override
        Optional<Grant> look(boolean waits) throws InterruptedException {
            if (!turn.look(waits)) {
                return Optional.empty();
            }
            done();
            HeldNode node = held.hold(request.name(), own.path(), own.session(), request.leaseTime());
            return Optional.of(bound.grant(request, own.czxid(), node, session));
        }

        @Override
        void remove() throws InterruptedException {
            calls.delete(request.name(), own.path(), calls.deadline());
        }
    }
}
