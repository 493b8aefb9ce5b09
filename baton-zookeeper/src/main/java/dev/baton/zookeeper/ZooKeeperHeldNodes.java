package dev.baton.zookeeper;

import dev.baton.spi.LeaseDeadline;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue nodes this client holds as grants, and what the session means for them. A grant lives
 * as long as the session, and at most its lease time without renewal: one sweep every 100 ms
 * deletes the node of a lease that ran out, so that a holder without auto-renewal frees the lock as
 * on every other backend. SUSPENDED (disconnected) marks every held grant lost unless the URI says
 * {@code onSuspended=wait}; LOST (session expired) always does; the core learns it at the next
 * renewal. The node of a grant marked lost is not deleted before its holder can know: it goes when
 * the holder releases, or when its lease runs out (the sweep), so that a short disconnection never
 * lets another client in beside a holder that still works.
 *
 * <p>Watches: this object is the one watcher of every held node. {@link #watch} reads a held node
 * with it in the grant's first renewal, so from then on the server tells this client when the node
 * is deleted by anyone but this client, and later renewals need no call per node ({@link
 * ZooKeeperLeaseRenewal}). Not at grant time: most locks are released before their first renewal,
 * and a read per acquisition would cost them for nothing. One watch per held node at most: the server
 * keeps one per path and connection however often it is set. A released or swept node leaves the map
 * before its delete, and the delete fires (and so removes) its watch; an expired session takes its
 * watches with it and empties the map. After a reconnection within the session, the next renewal
 * reads each held node once more.
 */
final class ZooKeeperHeldNodes implements Watcher {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperHeldNodes.class);
    private static final AtomicInteger TIMERS = new AtomicInteger();
    private static final long LEASE_SWEEP_MILLIS = 100;

    private final ZooKeeperCalls calls;
    private final boolean waitForReconnect;
    /** By the node's path on the ZooKeeper handle (with Curator's namespace), as watch events name it. */
    private final Map<String, HeldNode> held = new ConcurrentHashMap<>();
    /** Nodes of leases that ran out whose delete could not be sent or failed: the next sweep retries. */
    private final Set<String> undeleted = ConcurrentHashMap.newKeySet();

    private final ScheduledThreadPoolExecutor leaseTimer;
    private volatile boolean suspended;

    ZooKeeperHeldNodes(ZooKeeperCalls calls, boolean waitForReconnect) {
        this.calls = calls;
        this.waitForReconnect = waitForReconnect;
        String timerName = "baton-zookeeper-lease-" + TIMERS.incrementAndGet();
        this.leaseTimer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, timerName);
            thread.setDaemon(true);
            return thread;
        });
        leaseTimer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        // One sweep for every grant instead of a timer per grant: acquiring stays free of timer
        // traffic, and a lease runs out at most one sweep late.
        leaseTimer.scheduleWithFixedDelay(
                this::sweepExpiredLeases, LEASE_SWEEP_MILLIS, LEASE_SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * Registers a granted node of {@code session} (its ephemeral owner), not yet watched; it is lost
     * from the start if the connection is down now.
     */
    HeldNode hold(String lockName, String path, long session, Duration leaseTime) {
        HeldNode node = new HeldNode(
                lockName, calls.namespace + path, calls.namespace.length(), leaseTime, session, System.nanoTime());
        if (suspended && !waitForReconnect) {
            node.lost = true;
        }
        held.put(node.watchedPath, node);
        return node;
    }

    /** Forgets a node that is being released: its lease no longer runs out, its deletion is ours. */
    void forget(HeldNode node) {
        held.remove(node.watchedPath, node);
        node.cancelExpiry();
    }

    /** How many nodes this client holds as far as it knows (for tests). */
    int size() {
        return held.size();
    }

    /** Whether the connection is down (between SUSPENDED or LOST and the next connection). */
    boolean suspended() {
        return suspended;
    }

    /**
     * Sets this watcher on {@code node} through {@code zk} without waiting: the node counts as
     * watched in {@code zk}'s session once the server answered that it exists and belongs to that
     * session; a node that is gone, or that another session owns, is lost. Any other answer (a
     * connection loss) leaves it unwatched, and the next renewal tries again. The answer
     * runs on {@code zk}'s event thread, in order with the watch events before it.
     */
    void watch(HeldNode node, ZooKeeper zk) {
        long session = zk.getSessionId();
        zk.getData(
                node.watchedPath,
                this,
                (rc, path, ctx, data, stat) -> {
                    KeeperException.Code code = KeeperException.Code.get(rc);
                    if (code == KeeperException.Code.OK && stat.getEphemeralOwner() == session) {
                        node.watchedInSession = session;
                    } else if (code == KeeperException.Code.OK || code == KeeperException.Code.NONODE) {
                        nodeGone(node, "its node " + node.path() + " no longer exists in this session");
                    } else {
                        node.watchFailure = code;
                        log.debug("{}: watching {} failed: {}", calls.backendName(), node.path(), code);
                    }
                },
                null);
    }

    @Override
    public void process(WatchedEvent event) {
        switch (event.getType()) {
            case NodeDeleted -> {
                HeldNode node = held.get(event.getPath());
                if (node != null) {
                    nodeGone(node, "its node " + node.path() + " was deleted by another client");
                }
            }
                // The watch fired, the node is still there: the next renewal sets the watch again.
            case NodeDataChanged -> {
                HeldNode node = held.get(event.getPath());
                if (node != null) {
                    node.watchedInSession = 0;
                }
            }
            case None -> {
                if (event.getState() == Event.KeeperState.Expired) {
                    // The server deleted every node of the session and dropped its watches; nodes
                    // granted in a newer session live on.
                    markAllLost("the ZooKeeper session expired");
                    held.values().removeIf(node -> node.lost);
                }
            }
            default -> {}
        }
    }

    private void nodeGone(HeldNode node, String why) {
        held.remove(node.watchedPath, node);
        if (!node.lost) {
            node.lost = true;
            log.warn("{}: {}; the lease is reported lost at its next renewal", calls.describe(node.lockName), why);
        }
    }

    void onConnectionState(ConnectionState state) {
        switch (state) {
            case SUSPENDED -> {
                suspended = true;
                if (!waitForReconnect) {
                    markAllLost("the connection to ZooKeeper was suspended");
                }
            }
            case LOST -> {
                suspended = true;
                markAllLost("the ZooKeeper session was lost");
            }
            case RECONNECTED -> {
                // A node marked lost stays: its holder may still be working, not yet told (it learns
                // at its next renewal, or when it releases). Deleted now, it would let the next
                // waiter in beside that holder (`baton check` found such overlaps after short
                // disconnections). It goes when the holder releases, or at the latest when its lease
                // runs out (the sweep), when the holder's own validity has run out too.
                for (HeldNode node : held.values()) {
                    if (!node.lost) {
                        // The client sets its watches again after a reconnection unless it was told
                        // not to (zookeeper.disableAutoWatchReset): the next renewal reads each held
                        // node once more rather than trust that, before it renews the node again.
                        node.watchedInSession = 0;
                    }
                }
                suspended = false;
            }
            case CONNECTED -> suspended = false;
            default -> {}
        }
    }

    /**
     * Marks lost every held node but those granted in the session the client is connected in now.
     * Connection events arrive on Curator's own thread, possibly after the client reconnected (in a
     * new session, or the same one) and granted new nodes: those are alive, and marking them lost
     * would delete them at RECONNECTED under a holder that still works (`baton check` found such
     * overlaps after a SIGSTOP longer than the session).
     */
    private void markAllLost(String why) {
        long live = calls.liveSessionId();
        int count = 0;
        for (HeldNode node : held.values()) {
            if (live != 0 && node.sessionId == live) {
                continue;
            }
            if (!node.lost) {
                node.lost = true;
                count++;
            }
        }
        if (count > 0) {
            log.warn("{}: {}; {} held lease(s) reported lost at their next renewal", calls.backendName(), why, count);
        }
    }

    private void sweepExpiredLeases() {
        for (String path : undeleted) {
            if (undeleted.remove(path)) {
                calls.deleteInBackground(path, () -> undeleted.add(path));
            }
        }
        long now = System.nanoTime();
        for (HeldNode node : held.values()) {
            if (node.expireIfDue(now)) {
                held.remove(node.watchedPath, node);
                log.info(
                        "{}: lease time {} ran out without renewal; deleting the node {}",
                        calls.describe(node.lockName),
                        node.leaseTime,
                        node.path());
                String path = node.path();
                calls.deleteInBackground(path, () -> undeleted.add(path));
            }
        }
    }

    void stop() {
        leaseTimer.shutdownNow();
    }

    /** A granted queue node: its lease deadline, whether it is known lost, and its watch. */
    static final class HeldNode {
        final String lockName;
        /**
         * The path on the ZooKeeper handle: Curator's namespace and {@link #path()}. The one string
         * of the node that is kept: the ZooKeeper client keys its watch by this same instance.
         */
        final String watchedPath;

        private final int namespaceLength;

        final Duration leaseTime;
        /** The session the node was granted in (its ephemeral owner); 0 if unknown. */
        final long sessionId;

        volatile boolean lost;
        /** The local lease deadline: the session would keep the node as long as it lives. */
        private final LeaseDeadline deadline;
        /** The session in which the server holds this client's watch on the node; 0 if none. */
        volatile long watchedInSession;
        /** Why the last attempt to watch failed, for messages; null if none did. */
        volatile KeeperException.Code watchFailure;

        HeldNode(
                String lockName,
                String watchedPath,
                int namespaceLength,
                Duration leaseTime,
                long sessionId,
                long now) {
            this.sessionId = sessionId;
            this.lockName = lockName;
            this.watchedPath = watchedPath;
            this.namespaceLength = namespaceLength;
            this.leaseTime = leaseTime;
            this.deadline = new LeaseDeadline(now + leaseTime.toNanos());
        }

        /** The node's path without Curator's namespace, as {@link ZooKeeperCalls} takes it. */
        String path() {
            return watchedPath.substring(namespaceLength);
        }

        /** Moves the deadline; false if the lease already ran out. */
        boolean extend(long deadline) {
            return this.deadline.extend(deadline);
        }

        void cancelExpiry() {
            deadline.release();
        }

        /** Marks the lease run out (and the node lost) if its deadline passed; true if this call did. */
        boolean expireIfDue(long now) {
            if (!deadline.expireIfDue(now)) {
                return false;
            }
            lost = true;
            return true;
        }

        /** Whether the grant still holds as far as this client knows. */
        boolean valid() {
            return !lost && !deadline.expired();
        }
    }
}
