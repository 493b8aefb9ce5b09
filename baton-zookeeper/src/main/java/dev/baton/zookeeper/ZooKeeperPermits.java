package dev.baton.zookeeper;

import dev.baton.LockConfigurationException;
import dev.baton.LockKind;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.zookeeper.ZooKeeperHeldNodes.HeldNode;
import dev.baton.zookeeper.ZooKeeperQueueProtocol.Entered;
import dev.baton.zookeeper.ZooKeeperQueueProtocol.QueueNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>Acquiring, in Curator's order: join the mutex queue and wait for its head; create the lease
 * node; keep it if {@code leases} then has at most {@code permits} children (every child counts, as
 * Curator counts them); otherwise wait, still holding the mutex, on a children watch of {@code
 * leases} (woken only by a change) and count again; then leave the mutex. Why this is safe: every
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
 * mutex) and its release one; and an attempt that times out, is interrupted or fails deletes its lease node and then
 * its mutex node before it returns (an attempt whose outcome is unknown is cleaned up by {@link
 * #abandon}, which finds both by their protection prefix), so that no orphan holds a permit or the
 * mutex (the bug of CURATOR-79).
 *
 * <p>Token: the lease node's czxid. Leases of one semaphore are created one at a time under its
 * mutex, each after the previous grant, and zxids only grow, so tokens strictly increase per name.
 * Lease: the lease node is a held node like a lock's ({@link ZooKeeperHeldNodes}): it lives as long
 * as the session and at most its lease time without renewal, renewed and reported lost as locks
 * are, and released by deleting it, which wakes the mutex holder's children watch.
 *
 * <p>The count: Curator does not store it. Baton writes it, as decimal text, into the semaphore
 * node's data when the data is empty, and otherwise compares it (a client with another count fails
 * with {@link LockConfigurationException}); Curator ignores that data. The semaphore's nodes are
 * containers, as Curator creates them: ZooKeeper removes them once nobody holds or waits, and the
 * count goes with them. Data that is not a count (a Curator user may have created the node with
 * its own data) is left alone, and then the count is not checked.
 */
final class ZooKeeperPermits {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperPermits.class);
    /** The parent of every semaphore path, under the root. */
    static final String SEMAPHORES = "~semaphores";

    static final String LOCKS = "/locks";
    static final String LEASES = "/leases";

    private final ZooKeeperCalls calls;
    private final ZooKeeperQueueProtocol queue;
    private final ZooKeeperHeldNodes held;
    private final ZooKeeperSessionBound bound;
    private final String root;
    private final Set<ZooKeeperQueueWatch> waiters = ConcurrentHashMap.newKeySet();

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
        this.root = root;
    }

    /** The path of semaphore {@code name}: {@code <root>/~semaphores/<encoded name>}. */
    static String semaphorePath(String root, String name) {
        return root + "/" + SEMAPHORES + "/" + ZooKeeperLockPaths.encode(name);
    }

    /** Close, session loss or reconnection: every waiter for a lease counts again. */
    void wakeWaiters() {
        waiters.forEach(ZooKeeperQueueWatch::wake);
    }

    /**
     * One permit of {@code request.name()}, as {@link dev.baton.spi.LockBackend#acquire} describes:
     * empty when the time ran out; nothing left behind unless granted.
     *
     * @param start when the attempt began ({@link System#nanoTime()}), which {@code timeoutNanos}
     *     counts from
     * @param timeoutNanos 0 to look once, negative to wait without limit
     */
    Optional<Grant> acquire(LockRequest request, long start, long timeoutNanos) throws InterruptedException {
        String path = semaphorePath(root, request.name());
        String subject = ZooKeeperCalls.semaphoreSubject(request.name());
        LockRequest mutex = mutexRequest(request, subject);
        Entered inMutex = queue.enter(mutex, path + LOCKS, calls.deadline());
        // The count is read once our mutex node keeps the semaphore's container from being removed,
        // without waiting for the answer: alone in the mutex queue, the attempt creates its lease
        // node meanwhile and reads the answer after the lease's (the count and the lease cost one
        // round trip; a lease node created by a client with the wrong count is deleted before any
        // other client counts, since only the mutex holder counts). Behind others, the answer is
        // awaited first, so that a client with the wrong count fails before it waits in the queue.
        CompletableFuture<CountRead> count = readCount(path);
        boolean alone = inMutex.children() != null;
        QueueNode lease = null;
        ZooKeeperOwnSession leaseSession = null;
        boolean granted = false;
        try {
            if (!alone) {
                checkCount(request, subject, path, count);
            }
            ZooKeeperOwnSession inMutexSession = new ZooKeeperOwnSession(calls, subject, inMutex.own());
            if (!queue.awaitTurn(mutex, path + LOCKS, inMutex, inMutexSession, start, timeoutNanos)) {
                return Optional.empty();
            }
            Entered joined = queue.enter(leaseRequest(request, subject), path + LEASES, calls.deadline());
            lease = joined.own();
            leaseSession = new ZooKeeperOwnSession(calls, subject, lease);
            if (alone) {
                checkCount(request, subject, path, count);
            }
            if (!awaitLease(subject, path + LEASES, joined, leaseSession, request.permits(), start, timeoutNanos)) {
                return Optional.empty();
            }
            // The permit is ours: the next acquirer may count the leases. A failure here fails the
            // attempt, and the finally below removes both nodes.
            calls.delete(subject, inMutex.own().path(), calls.deadline());
            granted = true;
        } finally {
            if (!granted) {
                // Lease first: the mutex's next holder must not count an orphan lease.
                if (lease != null) {
                    calls.deleteQuietly(subject, lease.path());
                }
                calls.deleteQuietly(subject, inMutex.own().path());
            }
        }
        HeldNode node = held.hold(subject, lease.path(), lease.session(), request.leaseTime());
        return Optional.of(bound.grant(request, lease.czxid(), node, leaseSession));
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
     * Waits, holding the mutex, until at most {@code permits} leases exist with ours among them;
     * false when the time ran out first.
     */
    private boolean awaitLease(
            String subject,
            String leasesPath,
            Entered joined,
            ZooKeeperOwnSession session,
            int permits,
            long start,
            long timeoutNanos)
            throws InterruptedException {
        // The lease counts only while its session is known to live (see ZooKeeperOwnSession): an
        // answer read after a stop past the session timeout must not grant it.
        if (joined.joined() > 0 && joined.joined() <= permits) {
            session.confirm();
            return true; // counted in the transaction that created it: no listing needed
        }
        String own = joined.own().node();
        ZooKeeperQueueWatch signal = new ZooKeeperQueueWatch();
        waiters.add(signal);
        try {
            while (true) {
                calls.checkOpen(subject);
                // Armed before the listing that sets the watch: a change after it wakes the wait.
                signal.arm(leasesPath);
                List<String> leases;
                try {
                    leases = calls.bounded(subject, "listing the leases", calls.deadline(), () -> calls.curator
                            .getChildren()
                            .usingWatcher(signal)
                            .forPath(leasesPath));
                } catch (ZooKeeperCalls.NoNode e) {
                    leases = List.of();
                }
                if (!leases.contains(own)) {
                    throw new LockUnavailableException(calls.describe(subject) + ": the lease node " + leasesPath + "/"
                            + own + " vanished while waiting (the ZooKeeper session expired); retry");
                }
                if (leases.size() <= permits) {
                    session.confirm();
                    return true;
                }
                long remaining = timeoutNanos < 0 ? Long.MAX_VALUE : timeoutNanos - (System.nanoTime() - start);
                if (remaining <= 0 || !signal.await(leasesPath, null, remaining)) {
                    return false;
                }
                signal.takeChanged();
            }
        } finally {
            waiters.remove(signal);
        }
    }

    /** An answer to {@link #readCount}: the result code, and the data and stat when it is OK. */
    private record CountRead(KeeperException.Code code, byte[] data, Stat stat) {}

    /** Sends a read of the semaphore node's data and returns at once; null when not connected. */
    private CompletableFuture<CountRead> readCount(String path) {
        ZooKeeper zk = calls.connectedHandle();
        if (zk == null) {
            return null;
        }
        CompletableFuture<CountRead> answer = new CompletableFuture<>();
        zk.getData(
                calls.namespace + path,
                false,
                (rc, p, ctx, data, stat) -> answer.complete(new CountRead(KeeperException.Code.get(rc), data, stat)),
                null);
        return answer;
    }

    /**
     * Records the count in the semaphore node's data if it has none, or compares it: a
     * compare-and-set on the node's version, so that of two first clients with different counts
     * one records and the other fails. Starts from the answer of {@code sent} ({@link #readCount})
     * if it came in time and says OK; reads again otherwise.
     */
    private void checkCount(LockRequest request, String subject, String path, CompletableFuture<CountRead> sent)
            throws InterruptedException {
        long deadline = calls.deadline();
        byte[] wanted = Integer.toString(request.permits()).getBytes(StandardCharsets.US_ASCII);
        CountRead first = awaitRead(sent, deadline);
        while (true) {
            Stat stat;
            byte[] data;
            if (first != null) {
                stat = first.stat();
                data = first.data();
                first = null;
            } else {
                stat = new Stat();
                try {
                    data = calls.bounded(subject, "reading the permit count", deadline, () -> calls.curator
                            .getData()
                            .storingStatIn(stat)
                            .forPath(path));
                } catch (ZooKeeperCalls.NoNode e) {
                    return; // the session ended with our mutex node: waiting reports it
                }
            }
            if (data == null || data.length == 0) {
                if (record(subject, path, wanted, stat.getVersion(), deadline)) {
                    return;
                }
                continue; // another client wrote first: compare with what it wrote
            }
            int recorded = parseCount(data);
            if (recorded < 0) {
                log.debug(
                        "{}: {} holds data that is not a permit count; the count is not checked",
                        calls.describe(subject),
                        path);
                return;
            }
            if (recorded != request.permits()) {
                throw new LockConfigurationException(calls.describe(subject) + ": asked for " + request.permits()
                        + " permits, but the semaphore has " + recorded + " (recorded in the data of " + path
                        + " by its first client); use the same number of permits for this name in every client, or"
                        + " delete " + path + " while no client uses the semaphore (ZooKeeper removes it by itself"
                        + " once nobody holds or waits for a permit)");
            }
            return;
        }
    }

    /** The answer of {@code sent} if it is OK and came before {@code deadline}; null otherwise. */
    private static CountRead awaitRead(CompletableFuture<CountRead> sent, long deadline) throws InterruptedException {
        if (sent == null) {
            return null;
        }
        try {
            CountRead read = sent.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return read.code() == KeeperException.Code.OK ? read : null;
        } catch (ExecutionException | TimeoutException e) {
            return null; // read again, bounded
        }
    }

    /** Writes the count if the node is still at {@code version}; false if another write came first. */
    private boolean record(String subject, String path, byte[] count, int version, long deadline)
            throws InterruptedException {
        try {
            return calls.bounded(subject, "recording the permit count", deadline, () -> {
                try {
                    calls.curator.setData().withVersion(version).forPath(path, count);
                    return true;
                } catch (KeeperException.BadVersionException e) {
                    return false;
                } catch (KeeperException.NoAuthException e) {
                    log.debug("{}: may not write {}; the count is not recorded", calls.describe(subject), path);
                    return true;
                }
            });
        } catch (ZooKeeperCalls.NoNode e) {
            return true; // as in checkCount
        }
    }

    /** The count in {@code data}, or -1 if it is not a positive decimal number. */
    static int parseCount(byte[] data) {
        if (data.length == 0 || data.length > 10) {
            return -1;
        }
        long value = 0;
        for (byte b : data) {
            if (b < '0' || b > '9') {
                return -1;
            }
            value = value * 10 + (b - '0');
        }
        return value >= 1 && value <= Integer.MAX_VALUE ? (int) value : -1;
    }
}
