package dev.baton.zookeeper;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.Waiting;
import dev.baton.zookeeper.ZooKeeperHeldNodes.HeldNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.ZooDefs;

/**
 * Locks as Curator-compatible queues of ephemeral sequential nodes. This class is the SPI over these
 * parts: the queue's node names and rules ({@link ZooKeeperLockQueue}), one client's joining of a
 * queue ({@link ZooKeeperQueueProtocol}) and waiting in it without a thread ({@link ZooKeeperLine},
 * {@link ZooKeeperQueueTurn}, {@link ZooKeeperQueueWatch}), the held nodes and what the session means
 * for them ({@link ZooKeeperHeldNodes}), and the bounded ZooKeeper calls ({@link ZooKeeperCalls}).
 *
 * <p>Connections, sessions and authentication come from a {@link CuratorFramework}; the recipes are
 * written here. Every ZooKeeper call is bounded by the operation timeout and reports an ensemble
 * that does not answer in time as {@link LockUnavailableException}. The node of a request has the
 * form of the Curator recipe that matches the kind asked for ({@link LockRequest#kind()}).
 *
 * <p>Leases: a grant lives as long as the ZooKeeper session and at most its lease time without
 * renewal. Renewal checks the session, not each node: one round trip per renewal call, however many
 * grants it holds, with a watch on each held node telling of its deletion ({@link
 * ZooKeeperLeaseRenewal}). Loss (a held node deleted by another client, a suspended connection unless
 * {@code onSuspended=wait}, an expired session, a lease run out) is reported at the next renewal.
 * Validity: every grant, renewal and extension is valid for the shorter of its lease time and the
 * session timeout the server negotiated, counted from the send time of the last request the server
 * answered in the node's session ({@link ZooKeeperSessionBound}), so a holder stopped or cut off past
 * its session is told by its own clock before another client can hold the lock.
 *
 * <p>Semaphore permits ({@link LockKind#PERMIT}) are Curator InterProcessSemaphoreV2 lease nodes
 * ({@link ZooKeeperPermits}); once granted, a permit's lease node is a held node like a lock's, so
 * renewal, loss and release do not tell them apart.
 */
final class ZooKeeperLockBackend implements LockBackend {
    private final ZooKeeperUri uri;
    private final ZooKeeperCalls calls;
    private final ZooKeeperQueueProtocol queue;
    private final ZooKeeperHeldNodes held;
    private final ZooKeeperSessionBound bound;
    private final ZooKeeperLeaseRenewal renewal;
    private final ZooKeeperPermits permits;
    private final ZooKeeperLine line;
    private final Waiting waiting;
    private final ZooKeeperLockListing listing;

    ZooKeeperLockBackend(ZooKeeperUri uri, LockOptions options, CuratorFramework curator) {
        this.uri = uri;
        this.calls = new ZooKeeperCalls(uri, curator, options.operationTimeout());
        this.queue = new ZooKeeperQueueProtocol(
                calls, uri.creatorOnlyAcl() ? ZooDefs.Ids.CREATOR_ALL_ACL : ZooDefs.Ids.OPEN_ACL_UNSAFE, uri.root());
        this.held = new ZooKeeperHeldNodes(calls, uri.waitForReconnect());
        this.bound = new ZooKeeperSessionBound(calls.backendName(), uri.sessionTimeout());
        this.renewal = new ZooKeeperLeaseRenewal(calls, held, bound, uri.sessionTimeout());
        this.permits = new ZooKeeperPermits(calls, queue, held, bound, uri.root());
        this.line = new ZooKeeperLine(calls, queue, held, bound, permits, uri.root());
        this.waiting = Waiting.queue(line);
        this.listing = new ZooKeeperLockListing(calls, uri.root(), uri.sessionTimeout());
        curator.getConnectionStateListenable().addListener((client, state) -> {
            held.onConnectionState(state);
            if (state == ConnectionState.LOST || state == ConnectionState.RECONNECTED) {
                queue.wakeWaiters();
            }
        });
    }

    @Override
    public String name() {
        return calls.backendName();
    }

    /**
     * Waiters queue in the server and hold no thread: see {@link ZooKeeperLine}. The same line serves
     * every kind, a semaphore's permits included.
     */
    @Override
    public Waiting waiting(LockKind kind) {
        return waiting;
    }

    /**
     * Semaphores in the wire format of Curator's InterProcessSemaphoreV2, at {@code
     * <root>/~semaphores/<encoded name>}: see {@link ZooKeeperPermits}. Their waiters queue in the
     * semaphore's mutex, as locks' waiters queue in the lock's queue.
     */
    @Override
    public boolean supportsPermits() {
        return true;
    }

    /** Joins the queue, and leaves it again unless the node holds at once. */
    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        return line.tryAcquire(request);
    }

    /** A batch of one: see {@link #renewAll}. */
    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        return renewal.renewAll(List.of(grant), leaseTime).get(0);
    }

    /** Every grant due: a call costs one round trip however many grants it renews. */
    @Override
    public int renewalBatchSize() {
        return Integer.MAX_VALUE;
    }

    /** One round trip for the whole batch, no call per node: see {@link ZooKeeperLeaseRenewal}. */
    @Override
    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        return renewal.renewAll(grants, leaseTime);
    }

    @Override
    public boolean release(Grant grant) {
        HeldNode node = (HeldNode) grant.backendState();
        if (node == null) {
            // abandon() of the default kind: nothing was granted.
            return false;
        }
        held.forget(node);
        boolean wasValid = node.valid();
        try {
            // node.lockName: the name as messages give it (a semaphore's says so).
            return calls.delete(node.lockName, node.path(), calls.deadline()) && wasValid;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(
                    calls.describe(node.lockName) + ": interrupted while releasing; ZooKeeper removes the node when"
                            + " the session ends",
                    e);
        }
    }

    /** How many nodes this client holds as far as it knows, each with at most one watch (for tests). */
    int heldNodeCount() {
        return held.size();
    }

    @Override
    public void abandon(LockRequest request) {
        if (!calls.hasHadSession()) {
            // Nodes live in a session: without one the attempt left nothing, and looking for it would
            // wait for a server that was never reached, past the operation timeout the caller was given.
            return;
        }
        boolean interrupted = Thread.interrupted();
        try {
            if (request.kind() == LockKind.PERMIT) {
                permits.abandon(request);
            } else {
                queue.removeOwn(request, ZooKeeperLockPaths.lockPath(uri.root(), request.name()));
            }
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Lock {@code lockName} (not a semaphore of that name): see {@link ZooKeeperLockListing}. */
    @Override
    public Optional<LockInfo> inspect(String lockName) {
        try {
            return listing.lock(lockName).stream()
                    .map(ZooKeeperLockListing.Found::info)
                    .findFirst();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(calls.describe(lockName) + ": interrupted while inspecting", e);
        }
    }

    /**
     * Walks the root's children (lock names) and {@code <root>/~semaphores}'s (semaphore names),
     * decodes the names and keeps those under {@code prefix}, then reads each one's queue and its
     * holders' nodes, pipelined: see {@link ZooKeeperLockListing}. Waiters are the queue entries
     * behind the holders (a semaphore's: its mutex queue's entries).
     */
    @Override
    public List<LockInfo> list(String prefix) {
        try {
            return listing.list(prefix);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(calls.describe(prefix) + ": interrupted while listing locks", e);
        }
    }

    @Override
    public String listingMethod() {
        return listing.method();
    }

    /**
     * Deletes the holders' nodes, each by its path (a node's path carries its owner's protection
     * prefix, so no other grant is touched, Curator's included). Deleting a node wakes the waiters
     * watching it, as a release does; the next node of the queue gets a larger czxid, so the next
     * token is higher. The broken holder learns it from its watch on the node, set at its first
     * renewal, or, before that, from that renewal's read of the node ({@link ZooKeeperHeldNodes}):
     * its next renewal answers empty. Its own release later finds no node and deletes nothing.
     */
    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        try {
            List<LockInfo> broken = new ArrayList<>();
            long deadline = calls.deadline();
            for (ZooKeeperLockListing.Found found : listing.lockAndSemaphore(name)) {
                List<Holder> hit = new ArrayList<>();
                for (ZooKeeperLockListing.HeldEntry entry : found.holders()) {
                    if ((ownerId == null || entry.holder().ownerId().equals(ownerId))
                            && calls.delete(name, entry.path(), deadline)) {
                        hit.add(entry.holder());
                    }
                }
                if (!hit.isEmpty()) {
                    broken.add(LockInfo.of(name, found.kind(), hit)
                            .withPermits(found.permits())
                            .withWaiters(OptionalInt.of(found.waiters())));
                }
            }
            return broken;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(calls.describe(name) + ": interrupted while breaking the lock", e);
        }
    }

    @Override
    public void close() {
        if (calls.isClosed()) {
            return;
        }
        // Closed before the waiters wake, so that each one either sees the flag or is woken.
        calls.markClosed();
        queue.wakeWaiters();
        held.stop();
        calls.closeSession();
    }
}
