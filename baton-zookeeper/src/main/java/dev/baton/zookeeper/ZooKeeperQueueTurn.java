package dev.baton.zookeeper;

import dev.baton.zookeeper.ZooKeeperQueueProtocol.Entered;
import java.util.List;
import org.apache.zookeeper.Watcher;

/**
 * One queue node's turn in its queue (a lock's, or a semaphore's mutex), decided without waiting:
 * {@link #look} says whether the node holds now, and otherwise leaves watches set on the nodes ahead
 * whose deletion wakes the waiter to look again. No thread waits in between.
 *
 * <p>Watches: the nearest blocker and the one before it, so that a node is watched by at most two
 * waiters (no herd). Blockers only ever go (nodes join behind), so the nearest one's deletion means
 * the node holds when it was the only blocker left, or when the one before it was the first and has
 * gone too: no listing then. When only the one before goes and it was not the first, the queue is
 * listed again early, while the nearest still blocks, to learn whether the nearest one's deletion
 * will hand the lock over without a listing. A watch already set in this wait is not set again.
 *
 * <p>Session: every read is made in the session that owns the node, and the node holds only while
 * that session is known to live ({@link ZooKeeperOwnSession#confirm}): on a recent answer of it,
 * which costs the hand-off no read, or else on one more read of the node.
 */
final class ZooKeeperQueueTurn {
    private final ZooKeeperCalls calls;
    /** The lock or semaphore as messages name it. */
    private final String lockName;
    /** The queue's path on the server (with Curator's namespace), as watch events name nodes. */
    private final String queuePath;

    private final String own;
    private final boolean ownIsRead;
    private final ZooKeeperOwnSession session;
    private final ZooKeeperQueueWatch signal;

    // Touched by one look at a time (the core makes one call per entry at a time).
    /** The listing to decide on next; null to list the queue. */
    private List<String> listing;
    /** While the watches decide: the nearest blocker (a server path); null to decide on a listing. */
    private String nearest;
    /** The blocker before the nearest one, while it is watched; null if none. */
    private String before;

    private boolean beforeIsFirst;

    /**
     * @param lockPath the queue's path (without Curator's namespace)
     * @param entered the node, and the queue as listed when it joined (null if unknown)
     * @param ownIsRead whether the node is a read lock's, which only exclusive nodes ahead block
     * @param session the reads in the node's session; once {@link #look} returns true, it tells until
     *     when that session is known to live
     * @param signal the watcher of this wait, which records what the watches see
     */
    ZooKeeperQueueTurn(
            ZooKeeperCalls calls,
            String lockName,
            String lockPath,
            Entered entered,
            boolean ownIsRead,
            ZooKeeperOwnSession session,
            ZooKeeperQueueWatch signal) {
        this.calls = calls;
        this.lockName = lockName;
        this.queuePath = calls.namespace + lockPath;
        this.own = entered.own().node();
        this.ownIsRead = ownIsRead;
        this.session = session;
        this.signal = signal;
        this.listing = entered.children();
    }

    /**
     * Whether the node holds now. Decides from what the watches saw while they are set, and lists the
     * queue (and sets the watches) when they cannot tell; so a look after no event makes no call.
     *
     * @param waits whether to set watches when the node does not hold (false: look once, as {@link
     *     dev.baton.spi.LockBackend#tryAcquire} does)
     * @throws dev.baton.LockUnavailableException if the node vanished (its session expired), the
     *     session could not be confirmed, or ZooKeeper did not answer within the operation timeout
     */
    boolean look(boolean waits) throws InterruptedException {
        while (true) {
            // close() sets the flag before it wakes waiters: a close is either seen here or wakes
            // the waiter, which then looks again.
            calls.checkOpen(lockName);
            if (nearest != null) {
                switch (seen()) {
                    case NOTHING -> {
                        return false;
                    }
                    case HOLDS -> {
                        // The deletion may have been read long after it was sent (the client was
                        // stopped, say): the node's session must be known to live now.
                        session.confirm();
                        return true;
                    }
                    case LIST_AGAIN -> {
                        nearest = null;
                        before = null;
                    }
                }
            }
            List<String> children = listing != null ? listing : list();
            listing = null;
            List<String> sorted = ZooKeeperLockQueue.sorted(children);
            int index = sorted.indexOf(own);
            if (index < 0) {
                throw session.vanished();
            }
            List<String> blocking = ZooKeeperLockQueue.blockers(sorted, index, ownIsRead);
            if (blocking.isEmpty()) {
                session.confirm();
                return true;
            }
            if (!waits) {
                return false;
            }
            String first = queuePath + "/" + blocking.get(blocking.size() - 1);
            String second = blocking.size() >= 2 ? queuePath + "/" + blocking.get(blocking.size() - 2) : null;
            if (!watch(first) || (second != null && !watch(second))) {
                continue; // a blocker is gone already: list again
            }
            nearest = first;
            before = second;
            beforeIsFirst = blocking.size() == 2;
            // Around again: a watch may have fired while the other was set.
        }
    }

    private enum Seen {
        NOTHING,
        HOLDS,
        LIST_AGAIN
    }

    /** What the watches on the nearest blocker and the one before it saw since the last look. */
    private Seen seen() {
        if (signal.takeChanged()) {
            return Seen.LIST_AGAIN;
        }
        boolean beforeGone = before != null && signal.isGone(before);
        if (signal.isGone(nearest)) {
            return before == null || (beforeGone && beforeIsFirst) ? Seen.HOLDS : Seen.LIST_AGAIN;
        }
        if (beforeGone) {
            if (!beforeIsFirst) {
                return Seen.LIST_AGAIN;
            }
            before = null; // the first blocker went: the nearest is the last one, watched alone
        }
        return Seen.NOTHING;
    }

    /** The children of the queue, read in the node's session. */
    private List<String> list() throws InterruptedException {
        try {
            return session.read("listing the queue", zk -> zk.getChildren(queuePath, (Watcher) null, null));
        } catch (ZooKeeperCalls.NoNode e) {
            return List.of();
        }
    }

    /**
     * Sets the wait's watch on {@code path} (a server path) unless it is set already; false if the
     * node is already gone (and then recorded so).
     */
    private boolean watch(String path) throws InterruptedException {
        if (!signal.arm(path)) {
            return !signal.isGone(path);
        }
        try {
            session.read("watching the predecessor", zk -> zk.getData(path, signal, null));
            return true;
        } catch (ZooKeeperCalls.NoNode e) {
            signal.gone(path);
            return false;
        } catch (RuntimeException | InterruptedException e) {
            signal.disarm(path);
            throw e;
        }
    }
}
