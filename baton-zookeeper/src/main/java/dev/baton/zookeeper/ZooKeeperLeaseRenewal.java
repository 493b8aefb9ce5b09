package dev.baton.zookeeper;

import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.zookeeper.ZooKeeperHeldNodes.HeldNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

/**
 * Renews this client's grants in one ZooKeeper round trip per call, however many grants the call
 * holds: the session is the lease, and each held node is watched ({@link ZooKeeperHeldNodes}), so a
 * renewal checks the session, not each node.
 *
 * <p>What one call does: grants whose node is known lost (deleted by another client, as its watch
 * told; its session suspended or lost; its lease run out) are answered empty at once. For the rest,
 * it sets the watch on each node not yet watched in the current session (asynchronously, without
 * waiting: a grant's first renewal sets its watch, later ones find it set), then sends one {@code
 * exists("/")} on the same connection and waits for it. That answer is the renewal: the server heard
 * from the session when the call was sent or later, so the session, and with it every node it owns,
 * lives on. And because ZooKeeper delivers watch events and asynchronous answers in order on one
 * event thread, every deletion of a held node that the server applied before answering has been seen
 * by then. A node then counts as renewed if it is still valid and watched in that very session; a
 * node watched in an earlier session is lost (that session ended, and its ephemeral nodes with it).
 *
 * <p>Why one round trip and not none: a connection that still looks connected may have been silent
 * for up to two thirds of the session timeout before the client notices, and the core counts
 * validity from the renewal's send time. Without an answer from the server, a renewal would extend a
 * lease that the server may expire meanwhile; with it, a renewal means what a per-node check meant
 * before (the validity is counted from a request the server answered), and a hung link makes the
 * renewal hang, so the core reports the loss at the validity deadline. The cost is one small read
 * per call, not per lock, plus one read per node, once, to set its watch.
 *
 * <p>Failures: while the connection is suspended (with {@code onSuspended=wait}), or when the server
 * does not answer within the operation timeout, the call throws {@link LockUnavailableException} for
 * all its grants and the core retries while they are valid. A connection loss is retried, after
 * the connection comes back, within the operation timeout. "Renewed until" is the local lease
 * deadline of {@link ZooKeeperHeldNodes}: the send time plus the lease time, so a holder that stops
 * renewing still has its node deleted when its lease runs out.
 *
 * <p>Validity: a renewed grant is valid for the shorter of the lease time (or the extension asked
 * for) and the negotiated session timeout from the send time of the answered request ({@link
 * ZooKeeperSessionBound}): the answer proves the session, and its nodes, alive that long and no
 * longer.
 */
final class ZooKeeperLeaseRenewal {
    /** The one node that always exists, to ask the session's server about. */
    private static final String ANY_NODE = "/";

    private final ZooKeeperCalls calls;
    private final ZooKeeperHeldNodes held;
    private final ZooKeeperSessionBound bound;
    private final Duration sessionTimeout;

    ZooKeeperLeaseRenewal(
            ZooKeeperCalls calls, ZooKeeperHeldNodes held, ZooKeeperSessionBound bound, Duration sessionTimeout) {
        this.calls = calls;
        this.held = held;
        this.bound = bound;
        this.sessionTimeout = sessionTimeout;
    }

    /** See {@link dev.baton.spi.LockBackend#renewAll}. */
    List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        List<Optional<Grant>> answers = new ArrayList<>(grants.size());
        List<HeldNode> nodes = new ArrayList<>(grants.size());
        boolean anyValid = false;
        for (Grant grant : grants) {
            HeldNode node = (HeldNode) grant.backendState();
            nodes.add(node);
            anyValid |= node != null && node.valid();
            answers.add(Optional.empty());
        }
        if (!anyValid) {
            return answers;
        }
        // As messages give it (a semaphore's says so): the first grant's node's name.
        String lockName =
                nodes.get(0) != null ? nodes.get(0).lockName : grants.get(0).name();
        if (held.suspended()) {
            throw new LockUnavailableException(calls.describe(lockName)
                    + (grants.size() > 1 ? " and " + (grants.size() - 1) + " other lock(s)" : "")
                    + ": disconnected from ZooKeeper; waiting for the connection to come back within the session"
                    + " timeout (" + sessionTimeout + ")");
        }
        long sentAt;
        long session;
        int sessionTimeoutMillis;
        try {
            long[] answered = checkSession(lockName, nodes);
            sentAt = answered[0];
            session = answered[1];
            sessionTimeoutMillis = (int) answered[2];
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(calls.describe(lockName) + ": interrupted while renewing", e);
        }
        long deadline = sentAt + leaseTime.toNanos();
        // Counted by the core from when it called, before sentAt: the session's proof from sentAt on.
        Duration validity = bound.validity(leaseTime, sessionTimeoutMillis, sentAt, sentAt);
        Instant expiresAt = Instant.now().plus(validity == null ? leaseTime : validity);
        for (int i = 0; i < grants.size(); i++) {
            HeldNode node = nodes.get(i);
            if (node == null || !node.valid()) {
                continue;
            }
            if (node.watchedInSession != session) {
                // Watched in a session that has ended: its ephemeral node went with it.
                node.lost = true;
                continue;
            }
            if (node.extend(deadline)) {
                answers.set(
                        i, Optional.of(grants.get(i).withExpiresAt(expiresAt).withValidity(validity)));
            }
        }
        return answers;
    }

    /**
     * Watches the nodes not yet watched and has the server answer one request, retrying after a
     * connection loss within the operation timeout.
     *
     * @return when the answered request was sent ({@link System#nanoTime()}), its session, and the
     *     session timeout the server negotiated, as the connection that answered reports it
     */
    private long[] checkSession(String lockName, List<HeldNode> nodes) throws InterruptedException {
        long deadline = calls.deadline();
        int unwatchedRounds = 0;
        while (true) {
            calls.checkOpen(lockName);
            ZooKeeper zk = calls.connectedHandle();
            if (zk == null) {
                calls.awaitConnection(lockName, "renewing", deadline, new KeeperException.ConnectionLossException());
                continue;
            }
            long session = zk.getSessionId();
            long sentAt = System.nanoTime();
            for (HeldNode node : nodes) {
                if (node != null && node.valid() && node.watchedInSession == 0) {
                    held.watch(node, zk);
                }
            }
            KeeperException.Code code = roundTrip(lockName, zk, deadline);
            switch (code) {
                case OK -> {
                    if (allWatched(nodes)) {
                        return new long[] {sentAt, session, zk.getSessionTimeout()};
                    }
                    // A watch fired on a data change meanwhile, or failed: once more, then give up.
                    if (++unwatchedRounds > 1) {
                        throw unwatched(lockName, nodes);
                    }
                }
                case CONNECTIONLOSS, OPERATIONTIMEOUT, SESSIONMOVED, SESSIONEXPIRED -> calls.awaitConnection(
                        lockName, "renewing", deadline, KeeperException.create(code));
                default -> throw calls.failure(lockName, "renewing", KeeperException.create(code));
            }
        }
    }

    /** One request on {@code zk}, answered on its event thread after every event before it. */
    private KeeperException.Code roundTrip(String lockName, ZooKeeper zk, long deadline) throws InterruptedException {
        CompletableFuture<Integer> answer = new CompletableFuture<>();
        zk.exists(ANY_NODE, false, (rc, path, ctx, stat) -> answer.complete(rc), null);
        try {
            return KeeperException.Code.get(
                    answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            calls.checkOpen(lockName);
            throw new LockUnavailableException(
                    calls.describe(lockName) + ": ZooKeeper did not answer while renewing within the operation"
                            + " timeout; the leases are reported lost when their validity runs out",
                    e);
        } catch (ExecutionException e) {
            throw calls.failure(lockName, "renewing", e);
        }
    }

    /**
     * After an answered round trip every watch sent before it has been answered: whether each node
     * still valid is watched (a node the server said is gone is no longer valid).
     */
    private static boolean allWatched(List<HeldNode> nodes) {
        for (HeldNode node : nodes) {
            if (node != null && node.valid() && node.watchedInSession == 0) {
                return false;
            }
        }
        return true;
    }

    private LockUnavailableException unwatched(String lockName, List<HeldNode> nodes) {
        for (HeldNode node : nodes) {
            if (node != null && node.valid() && node.watchedInSession == 0) {
                return calls.failure(
                        lockName,
                        "renewing",
                        new IllegalStateException(
                                "could not watch the held node " + node.path() + " (" + node.watchFailure + ")"));
            }
        }
        return calls.failure(lockName, "renewing", new IllegalStateException("could not watch a held node"));
    }
}
