package dev.baton.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The two queue-lock protocols on the bare ZooKeeper client, without any library around them: the
 * floor each protocol can reach on a given machine, to tell a library's overhead from the protocol's
 * cost. Run with {@code BenchMain --backends zookeeper-protocols}; not part of {@code baton bench}.
 *
 * <ul>
 *   <li><b>Baton's protocol</b>: one multi (create the queue node, write the lock node) tells whether
 *       the node is alone; a waiter watches its nearest blocker and the one before it, and takes the
 *       lock on the nearest one's deletion without listing when the nearest was its only blocker, or
 *       when the one before it was the first and is gone too (nodes only ever join behind).
 *   <li><b>Curator's loop</b>: create, list, watch the predecessor, and list again after every event.
 * </ul>
 *
 * <p>Both use Curator's node names; neither has timeouts, leases or fencing: a bench subject only.
 */
final class ZooKeeperProtocolSubjects {
    private static final byte[] EMPTY = new byte[0];
    /** A waiter lists the queue again after this long without an event (a lost watch, say). */
    private static final long WAIT_BOUND_SECONDS = 10;

    private ZooKeeperProtocolSubjects() {}

    static List<LockSubject> subjects(String connect, int sessionMillis) {
        return List.of(
                new Subject("bare: baton protocol", connect, sessionMillis, true),
                new Subject("bare: curator loop", connect, sessionMillis, false));
    }

    /** One protocol: Baton's ({@code batonProtocol}) or Curator's loop, one session per client. */
    private record Subject(String name, String connect, int sessionMillis, boolean batonProtocol)
            implements LockSubject {

        @Override
        public Client newClient() {
            ZooKeeper zk = openSession();
            String root = batonProtocol ? "/bench-bare-baton/" : "/bench-bare-curator/";
            return new Client() {
                @Override
                public Held acquire(String lockName) {
                    String lockPath = root + lockName;
                    try {
                        String own = batonProtocol ? acquireBaton(zk, lockPath) : acquireCurator(zk, lockPath);
                        return () -> {
                            try {
                                zk.delete(own, -1);
                            } catch (KeeperException | InterruptedException e) {
                                throw new IllegalStateException(name + ": deleting " + own + " failed: " + e, e);
                            }
                        };
                    } catch (KeeperException | InterruptedException e) {
                        throw new IllegalStateException(name + ": acquiring " + lockName + " failed: " + e, e);
                    }
                }

                @Override
                public void close() {
                    try {
                        zk.close();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            };
        }

        private ZooKeeper openSession() {
            CountDownLatch connected = new CountDownLatch(1);
            try {
                ZooKeeper zk = new ZooKeeper(connect, sessionMillis, event -> {
                    if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                });
                if (!connected.await(30, TimeUnit.SECONDS)) {
                    zk.close();
                    throw new IllegalStateException("ZooKeeper at " + connect + " did not accept a session in 30 s");
                }
                return zk;
            } catch (java.io.IOException e) {
                throw new IllegalStateException("cannot connect to ZooKeeper at " + connect + ": " + e, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while connecting to ZooKeeper at " + connect, e);
            }
        }
    }

    /** Creates the lock node and its parents, if missing. */
    private static void createLockNode(ZooKeeper zk, String lockPath) throws KeeperException, InterruptedException {
        int slash = lockPath.indexOf('/', 1);
        for (String path : List.of(lockPath.substring(0, slash), lockPath)) {
            try {
                zk.create(path, EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } catch (KeeperException.NodeExistsException e) {
                // created meanwhile
            }
        }
    }

    private static String acquireBaton(ZooKeeper zk, String lockPath) throws KeeperException, InterruptedException {
        List<OpResult> results;
        while (true) {
            try {
                results = zk.multi(List.of(
                        Op.create(
                                lockPath + "/_c_bare-lock-",
                                EMPTY,
                                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                                CreateMode.EPHEMERAL_SEQUENTIAL),
                        Op.setData(lockPath, EMPTY, -1)));
                break;
            } catch (KeeperException.NoNodeException e) {
                createLockNode(zk, lockPath);
            }
        }
        String own = ((OpResult.CreateResult) results.get(0)).getPath();
        if (((OpResult.SetDataResult) results.get(1)).getStat().getNumChildren() == 1) {
            return own;
        }
        String ownNode = own.substring(lockPath.length() + 1);
        Deletions deletions = new Deletions();
        Set<String> armed = new HashSet<>();
        while (true) {
            List<String> blockers = blockers(zk.getChildren(lockPath, false), ownNode);
            if (blockers.isEmpty()) {
                return own;
            }
            String nearest = lockPath + "/" + blockers.get(blockers.size() - 1);
            String before = blockers.size() >= 2 ? lockPath + "/" + blockers.get(blockers.size() - 2) : null;
            boolean beforeIsFirst = blockers.size() == 2;
            if (!deletions.watch(zk, nearest, armed) || (before != null && !deletions.watch(zk, before, armed))) {
                continue;
            }
            if (deletions.awaitTurn(nearest, before, beforeIsFirst)) {
                return own;
            }
        }
    }

    private static String acquireCurator(ZooKeeper zk, String lockPath) throws KeeperException, InterruptedException {
        String own;
        while (true) {
            try {
                own = zk.create(
                        lockPath + "/_c_bare-lock-",
                        EMPTY,
                        ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        CreateMode.EPHEMERAL_SEQUENTIAL);
                break;
            } catch (KeeperException.NoNodeException e) {
                createLockNode(zk, lockPath);
            }
        }
        String ownNode = own.substring(lockPath.length() + 1);
        while (true) {
            List<String> blockers = blockers(zk.getChildren(lockPath, false), ownNode);
            if (blockers.isEmpty()) {
                return own;
            }
            CountDownLatch gone = new CountDownLatch(1);
            if (zk.exists(lockPath + "/" + blockers.get(blockers.size() - 1), event -> gone.countDown()) != null) {
                gone.await(WAIT_BOUND_SECONDS, TimeUnit.SECONDS); // then list again: always safe
            }
        }
    }

    /** The nodes ahead of {@code own}, in queue order (by the sequence after "lock-"). */
    private static List<String> blockers(List<String> children, String own) {
        List<String> sorted = new ArrayList<>(children);
        sorted.sort(java.util.Comparator.comparing(node -> node.substring(node.lastIndexOf("lock-") + 5)));
        int index = sorted.indexOf(own);
        if (index < 0) {
            throw new IllegalStateException("own queue node " + own + " vanished (session expired?)");
        }
        return Collections.unmodifiableList(sorted.subList(0, index));
    }

    /** The deletions a waiter's watches reported (queue nodes never come back). */
    private static final class Deletions implements Watcher {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private final Set<String> deleted = new HashSet<>();

        @Override
        public void process(org.apache.zookeeper.WatchedEvent event) {
            if (event.getType() == Event.EventType.NodeDeleted) {
                lock.lock();
                try {
                    deleted.add(event.getPath());
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        }

        /** Watches {@code path} once per wait; false if it is already gone. */
        boolean watch(ZooKeeper zk, String path, Set<String> armed) throws KeeperException, InterruptedException {
            if (!armed.add(path)) {
                return !isDeleted(path);
            }
            if (zk.exists(path, this) == null) {
                lock.lock();
                try {
                    deleted.add(path);
                } finally {
                    lock.unlock();
                }
                return false;
            }
            return true;
        }

        private boolean isDeleted(String path) {
            lock.lock();
            try {
                return deleted.contains(path);
            } finally {
                lock.unlock();
            }
        }

        /**
         * Waits until the lock is ours without a listing (true) or a listing is needed (false): the
         * rules of Baton's waiter.
         */
        boolean awaitTurn(String nearest, String before, boolean beforeIsFirst) throws InterruptedException {
            lock.lock();
            try {
                while (true) {
                    boolean beforeGone = before != null && deleted.contains(before);
                    if (deleted.contains(nearest)) {
                        return before == null || (beforeGone && beforeIsFirst);
                    }
                    if (beforeGone) {
                        if (!beforeIsFirst) {
                            return false;
                        }
                        before = null; // the first went: the nearest is the last blocker
                    }
                    if (!changed.await(WAIT_BOUND_SECONDS, TimeUnit.SECONDS)) {
                        return false; // list again: always safe
                    }
                }
            } finally {
                lock.unlock();
            }
        }
    }
}
