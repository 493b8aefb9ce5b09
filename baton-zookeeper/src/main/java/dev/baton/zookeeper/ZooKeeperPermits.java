package dev.baton.zookeeper;

import dev.baton.LockConfigurationException;
import dev.baton.LockKind;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.zookeeper.ZooKeeperHeldNodes.HeldNode;
import dev.baton.zookeeper.ZooKeeperQueueProtocol.Entered;
import dev.baton.zookeeper.ZooKeeperQueueProtocol.QueueNode;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Semaphore permits, in the wire format of Apache Curator's {@code InterProcessSemaphoreV2}, so
 * that Curator's semaphores and Baton's share the permits of one path. The whole protocol is here;
 * the node names come from {@link ZooKeeperLockQueue} and the calls from {@link
 * ZooKeeperQueueProtocol}, as for locks.
 *
 * <p>Paths: semaphore {@code name} lives at {@code <root>/~semaphores/<encoded name>} (the encoding
 * of {@link ZooKeeperLockPaths}). The {@code ~} keeps semaphores apart from locks: lock names
 * encode to letters, digits, {@code - _ . %} only, so no lock path is, or lies under, {@code
 * <root>/~semaphores}, and a semaphore and a lock of the same name never meet. A Curator user
 * points {@code new InterProcessSemaphoreV2(client, "<root>/~semaphores/<name>", permits)} at it.
 * Under that path, as Curator lays it out:
 *
 * <ul>
 *   <li>{@code locks}: an InterProcessMutex queue ({@code _c_<uuid>-lock-<sequence>}) that lets one
 *       acquirer at a time count and add leases. It is the waiters' queue, and it is fair.
 *   <li>{@code leases}: one ephemeral sequential node {@code _c_<uuid>-lease-<sequence>} per permit
 *       held, or asked for by the mutex holder.
 * </ul>
 *
 * <p>Acquiring, in Curator's order: join the mutex queue and wait for its head (as a lock's waiter
 * waits, {@link ZooKeeperQueueTurn}); create the lease node; keep it if {@code leases} then has at
 * most {@code permits} children (every child counts, as Curator counts them); otherwise wait, still
 * holding the mutex, on a children watch of {@code leases} (woken only by a change) and count again;
 * then leave the mutex. No thread waits: each step is taken by an attempt of the core ({@link
 * PermitWaiter}), woken by the watches. Why this is safe: every
 * permit is decided by a count that sees every lease created before it and still held, so the
 * permit decided last saw all others held with it, and at most {@code permits}. Why it needs the
 * mutex: two waiters in {@code leases} at once would each count the other and could wait for each
 * other forever.
 *
 * <p>Baton differs from Curator only in cost and cleanup: the lease node is created in the one
 * multi of {@link ZooKeeperQueueProtocol#enter} (create and an empty write of {@code leases}), whose
 * stat counts the children at the moment the node joined, so a free permit is taken without
 * listing; the count check's read is sent without waiting and answered with the lease's create, so
 * an uncontended permit costs three round trips (join the mutex, create the lease, leave the
 * mutex) and its release one; and a waiter that times out, is interrupted or fails deletes its
 * lease node and then its mutex node when it leaves (an attempt whose outcome is unknown is cleaned up by {@link
 * #abandon}, which finds both by their protection prefix), so that no orphan holds a permit or the
 * mutex (the bug of CURATOR-79).
 *
 * <p>Token: the lease node's czxid. Leases of one semaphore are created one at a time under its
 * mutex, each after the previous grant, and zxids only grow, so tokens strictly increase per name.
 * Lease: the lease node is a held node like a lock's ({@link ZooKeeperHeldNodes}): it lives as long
 * as the session and at most its lease time without renewal, renewed and reported lost as locks
 * are, and released by deleting it, which wakes the mutex holder's children watch.
 *
 * <p>The count: Curator does not store it; Baton keeps it in the semaphore node's data ({@link
 * ZooKeeperPermitCount}). It is read as soon as the mutex node keeps the semaphore's container from
 * being removed, without waiting for the answer: alone in the mutex queue, the attempt creates its
 * lease node meanwhile and checks the answer after the lease's (the count and the lease cost one
 * round trip; a lease node created by a client with the wrong count is deleted before any other
 * client counts, since only the mutex holder counts). Behind others, the answer is checked before
 * the request waits, so that a client with the wrong count fails at once. The semaphore's nodes are
 * containers, as Curator creates them: ZooKeeper removes them once nobody holds or waits, and the
 * count goes with them.
 */
final class ZooKeeperPermits {
    /** The parent of every semaphore path, under the root. */
    static final String SEMAPHORES = "~semaphores";

    static final String LOCKS = "/locks";
    static final String LEASES = "/leases";

    private final ZooKeeperCalls calls;
    private final ZooKeeperQueueProtocol queue;
    private final ZooKeeperHeldNodes held;
    private final ZooKeeperSessionBound bound;
    private final ZooKeeperPermitCount count;
    private final String root;

    ZooKeeperPermits(
            ZooKeeperCalls calls,
            ZooKeeperQueueProtocol queue,
            ZooKeeperHeldNodes held,
            ZooKeeperSessionBound bound,
            String root) {
        this.calls = calls;
        this.queue = queue;
        this.held = held;
        this.bound = bound;
        this.count = new ZooKeeperPermitCount(calls);
        this.root = root;
    }

    /** The path of semaphore {@code name}: {@code <root>/~semaphores/<encoded name>}. */
    static String semaphorePath(String root, String name) {
        return root + "/" + SEMAPHORES + "/" + ZooKeeperLockPaths.encode(name);
    }

    /**
     * Joins the semaphore's mutex queue for one permit of {@code request.name()} and takes the steps
     * that need no wait ({@link ZooKeeperLine.Waiter}): granted at once when a permit is free and
     * nobody waits before it.
     *
     * @param wake wakes the waiter when a watched node goes or the leases change
     * @param waits false to look once without setting watches
     * @throws LockConfigurationException if the semaphore records another permit count
     */
    ZooKeeperLine.Waiter join(LockRequest request, Runnable wake, boolean waits) throws InterruptedException {
        String path = semaphorePath(root, request.name());
        String subject = ZooKeeperCalls.semaphoreSubject(request.name());
        LockRequest mutex = mutexRequest(request, subject);
        Entered inMutex = queue.enter(mutex, path + LOCKS, calls.deadline());
        ZooKeeperQueueWatch signal = new ZooKeeperQueueWatch(wake);
        ZooKeeperQueueTurn turn = new ZooKeeperQueueTurn(
                calls,
                subject,
                path + LOCKS,
                inMutex,
                false,
                new ZooKeeperOwnSession(calls, subject, inMutex.own()),
                signal);
        PermitWaiter waiter = new PermitWaiter(request, subject, path, inMutex, signal, turn);
        // Read once our mutex node keeps the semaphore's container from being removed.
        CompletableFuture<ZooKeeperPermitCount.CountRead> read = count.read(path);
        if (inMutex.children() == null) {
            try {
                count.check(request, subject, path, read); // behind others: before waiting
            } catch (RuntimeException | InterruptedException e) {
                waiter.leaveQuietly();
                throw e;
            }
        } else {
            waiter.countToCheck = read; // alone: after the lease's create, in the first look
        }
        return waiter.first(waits);
    }

    /**
     * Removes the lease node and the mutex node an attempt of {@code request} may have left, found by
     * its protection prefix (both carry the same one).
     */
    void abandon(LockRequest request) throws InterruptedException {
        String path = semaphorePath(root, request.name());
        String subject = ZooKeeperCalls.semaphoreSubject(request.name());
        queue.removeOwn(leaseRequest(request, subject), path + LEASES);
        queue.removeOwn(mutexRequest(request, subject), path + LOCKS);
    }

    /** The mutex node's request: Curator's InterProcessMutex form, named for messages. */
    private static LockRequest mutexRequest(LockRequest request, String subject) {
        return LockRequest.builder(subject, request.ownerId(), LockKind.MUTEX, request.leaseTime())
                .holder(request.holder())
                .build();
    }

    /** The lease node's request: {@link ZooKeeperLockQueue#LEASE_MARKER}, named for messages. */
    private static LockRequest leaseRequest(LockRequest request, String subject) {
        return LockRequest.builder(subject, request.ownerId(), LockKind.PERMIT, request.leaseTime())
                .permits(request.permits())
                .holder(request.holder())
                .build();
    }

    /**
     * One permit request in line. Its steps, each taken once and in order, by as many looks as it
     * needs: the head of the mutex queue; the lease node created; the leases counted at most {@code
     * permits}, ours among them, on an answer of the lease node's live session; the mutex left. A
     * look that was cut short (an interrupt) takes its step again at the next look.
     */
    private final class PermitWaiter extends ZooKeeperLine.Waiter {
        private final LockRequest request;
        private final String path;
        private final Entered inMutex;
        private final ZooKeeperQueueTurn turn;
        /** The count's read, to check after the lease's create; null once checked (or checked on joining). */
        CompletableFuture<ZooKeeperPermitCount.CountRead> countToCheck;

        private boolean headOfMutex;
        /** The lease node; null before it is created. */
        private QueueNode lease;

        private ZooKeeperOwnSession leaseSession;
        /** Whether a create of the lease node may have reached the server without its answer. */
        private boolean leaseUnknown;
        /** Whether the leases were listed, with the children watch set, since the lease was created. */
        private boolean leasesListed;

        private boolean counted;

        PermitWaiter(
                LockRequest request,
                String subject,
                String path,
                Entered inMutex,
                ZooKeeperQueueWatch signal,
                ZooKeeperQueueTurn turn) {
            super(ZooKeeperPermits.this.calls, ZooKeeperPermits.this.queue, subject, signal);
            this.request = request;
            this.path = path;
            this.inMutex = inMutex;
            this.turn = turn;
        }

        @Override
        Optional<Grant> look(boolean waits) throws InterruptedException {
            if (!headOfMutex) {
                if (!turn.look(waits)) {
                    return Optional.empty();
                }
                headOfMutex = true;
            }
            if (lease == null) {
                leaseUnknown = true;
                Entered joined = queue.enter(leaseRequest(request, subject), path + LEASES, calls.deadline());
                lease = joined.own();
                leaseUnknown = false;
                leaseSession = new ZooKeeperOwnSession(calls, subject, lease);
                if (countToCheck != null) {
                    CompletableFuture<ZooKeeperPermitCount.CountRead> read = countToCheck;
                    countToCheck = null;
                    count.check(request, subject, path, read);
                }
                // Counted in the transaction that created it: no listing needed. The lease counts
                // only while its session is known to live (see ZooKeeperOwnSession): an answer read
                // after a stop past the session timeout must not grant it.
                if (joined.joined() > 0 && joined.joined() <= request.permits()) {
                    leaseSession.confirm();
                    counted = true;
                }
            }
            if (!counted) {
                if (!countLeases(waits)) {
                    return Optional.empty();
                }
                counted = true;
            }
            // The permit is ours: the next acquirer may count the leases. A failure here fails the
            // attempt, and leaving removes both nodes.
            calls.delete(subject, inMutex.own().path(), calls.deadline());
            done();
            HeldNode node = held.hold(subject, lease.path(), lease.session(), request.leaseTime());
            return Optional.of(bound.grant(request, lease.czxid(), node, leaseSession));
        }

        /**
         * Whether at most {@code permits} leases exist, ours among them: lists them (setting the
         * children watch) unless they were listed and nothing changed since.
         */
        private boolean countLeases(boolean waits) throws InterruptedException {
            String leasesPath = path + LEASES;
            if (leasesListed && !signal.takeChanged() && !signal.isGone(leasesPath)) {
                return false;
            }
            calls.checkOpen(subject);
            // Armed before the listing that sets the watch: a change after it wakes the waiter.
            boolean watches = waits && signal.arm(leasesPath);
            List<String> leases;
            try {
                leases = calls.bounded(
                        subject,
                        "listing the leases",
                        calls.deadline(),
                        () -> watches
                                ? calls.curator
                                        .getChildren()
                                        .usingWatcher(signal)
                                        .forPath(leasesPath)
                                : calls.curator.getChildren().forPath(leasesPath));
            } catch (ZooKeeperCalls.NoNode e) {
                leases = List.of();
            } catch (RuntimeException | InterruptedException e) {
                if (watches) {
                    signal.disarm(leasesPath);
                }
                throw e;
            }
            leasesListed = true;
            if (!leases.contains(lease.node())) {
                throw new LockUnavailableException(calls.describe(subject) + ": the lease node " + lease.path()
                        + " vanished while waiting (the ZooKeeper session expired); retry");
            }
            if (leases.size() > request.permits()) {
                return false;
            }
            leaseSession.confirm();
            return true;
        }

        @Override
        void remove() throws InterruptedException {
            // Lease first: the mutex's next holder must not count an orphan lease.
            try {
                if (lease != null) {
                    calls.delete(subject, lease.path(), calls.deadline());
                } else if (leaseUnknown) {
                    queue.removeOwn(leaseRequest(request, subject), path + LEASES);
                }
            } finally {
                calls.delete(subject, inMutex.own().path(), calls.deadline());
            }
        }
    }
}
