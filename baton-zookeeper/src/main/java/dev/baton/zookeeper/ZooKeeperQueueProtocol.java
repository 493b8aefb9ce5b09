package dev.baton.zookeeper;

import dev.baton.LockUnavailableException;
import dev.baton.spi.LockRequest;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's side of the lock queues (their node names and rules are in {@link
 * ZooKeeperLockQueue}): joining a queue ({@link #enter}) and leaving a queue whose node may or may not
 * exist ({@link #removeOwn}); a node that is known is deleted with {@link ZooKeeperCalls#delete}. A
 * node's turn is {@link ZooKeeperQueueTurn}'s, and the waiters' watchers are tracked here, so that a
 * close, a session loss or a reconnection wakes them all ({@link #wakeWaiters}).
 *
 * <p>Joining is protected: after a connection loss during create, the node is looked up by its
 * unique prefix before creating it again, so an attempt never leaves a duplicate.
 */
final class ZooKeeperQueueProtocol {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperQueueProtocol.class);
    private static final byte[] EMPTY = new byte[0];
    private static final int UNWRITABLE_REMEMBERED = 10_000;

    private final ZooKeeperCalls calls;
    private final List<ACL> acl;
    /** The parent of every lock path, for messages. */
    private final String root;

    private final Set<ZooKeeperQueueWatch> waiters = ConcurrentHashMap.newKeySet();
    /**
     * Lock nodes this client may not write (see {@link #enter}), remembered so that their queues are
     * entered without a failing multi first; bounded by forgetting them all now and then.
     */
    private final Set<String> unwritableLockNodes = ConcurrentHashMap.newKeySet();

    ZooKeeperQueueProtocol(ZooKeeperCalls calls, List<ACL> acl, String root) {
        this.calls = calls;
        this.acl = acl;
        this.root = root;
    }

    /**
     * A queue node: its path, its name in the queue, its czxid (the fencing token), the session that
     * owns it (its ephemeral owner), and when the request was sent whose answer showed it alive in
     * that session ({@link System#nanoTime()}; see {@link ZooKeeperOwnSession}).
     */
    record QueueNode(String path, String node, long czxid, long session, long seenAt) {}

    /**
     * The new queue node, and the queue as listed right after it was created (null if unknown).
     *
     * @param joined how many children the parent had in the transaction that created the node
     *     (counting it), or -1 if unknown; the semaphore's leases use it ({@link ZooKeeperPermits})
     */
    record Entered(QueueNode own, List<String> children, int joined) {
        Entered(QueueNode own, List<String> children) {
            this(own, children, -1);
        }
    }

    /** Close, session loss or reconnection: every waiter looks at its queue again. */
    void wakeWaiters() {
        waiters.forEach(ZooKeeperQueueWatch::wake);
    }

    /** A waiter's watcher, woken by {@link #wakeWaiters} until {@link #untrack}ed. */
    void track(ZooKeeperQueueWatch signal) {
        waiters.add(signal);
    }

    void untrack(ZooKeeperQueueWatch signal) {
        waiters.remove(signal);
    }

    /**
     * Creates the queue node in one round trip that also tells whether it is alone in the queue: a
     * multi of the create and an empty write of the lock node's data. Both are one transaction, so
     * the lock node's stat that the write returns counts the children at the moment our node
     * joined, and its mzxid is our node's czxid (the fencing token). Alone means first, and first
     * stays first, because nodes only ever join behind it: the lock is held without listing the
     * queue. Otherwise the queue is listed. The lock node's data is never read (Curator's recipes
     * leave it empty and do not watch it); only its version moves.
     *
     * <p>Anything unusual falls back to the protected {@link #create}: a missing lock node (created
     * there with its parents), a lock node this client may not write (then the multi is not tried
     * again on that node), a connection loss (the node is looked up by its protection prefix first).
     */
    Entered enter(LockRequest request, String lockPath, long deadline) throws InterruptedException {
        calls.checkOpen(request.name());
        if (calls.connectedHandle() == null) {
            // Not connected: wait for the connection here, within this attempt's deadline. Curator's
            // own calls would each wait a whole connection timeout, which adds up past it.
            calls.awaitConnection(request.name(), "connecting", deadline, null);
        }
        ZooKeeper zk = unwritableLockNodes.contains(lockPath) ? null : calls.connectedHandle();
        if (zk == null) {
            return new Entered(create(request, lockPath, deadline), null);
        }
        String base = lockPath + "/" + ZooKeeperLockQueue.nodePrefix(request.ownerId(), request.kind());
        List<OpResult> results;
        long session = zk.getSessionId();
        long sentAt = System.nanoTime();
        try {
            results = zk.multi(List.of(
                    Op.create(
                            calls.namespace + base,
                            ZooKeeperNodeData.encode(request.ownerId(), request.holder()),
                            acl,
                            CreateMode.EPHEMERAL_SEQUENTIAL),
                    Op.setData(calls.namespace + lockPath, EMPTY, -1)));
        } catch (KeeperException.NoNodeException e) {
            return new Entered(create(request, lockPath, deadline), null);
        } catch (KeeperException.NoAuthException e) {
            if (unwritableLockNodes.size() >= UNWRITABLE_REMEMBERED) {
                unwritableLockNodes.clear();
            }
            if (unwritableLockNodes.add(lockPath)) {
                log.debug(
                        "{}: may not write lock node {} ({}); entering its queue with a separate listing",
                        calls.backendName(),
                        lockPath,
                        e.toString());
            }
            return new Entered(create(request, lockPath, deadline), null);
        } catch (KeeperException.ConnectionLossException
                | KeeperException.OperationTimeoutException
                | KeeperException.SessionMovedException e) {
            // Possibly applied before the connection broke: the protected path looks for it.
            calls.awaitConnection(request.name(), "creating the queue node", deadline, e);
            QueueNode found =
                    findOwn(request.name(), lockPath, ZooKeeperLockQueue.protectionPrefix(request.ownerId()), deadline);
            return new Entered(found != null ? found : create(request, lockPath, deadline), null);
        } catch (KeeperException e) {
            // An expired session, or a failure the protected path reports with its context.
            return new Entered(create(request, lockPath, deadline), null);
        } catch (InterruptedException e) {
            cleanUpAfterInterrupt(request, lockPath);
            throw e;
        }
        String own = ((OpResult.CreateResult) results.get(0)).getPath().substring(calls.namespace.length());
        Stat lockNode = ((OpResult.SetDataResult) results.get(1)).getStat();
        QueueNode node = new QueueNode(own, own.substring(lockPath.length() + 1), lockNode.getMzxid(), session, sentAt);
        return new Entered(
                node, lockNode.getNumChildren() == 1 ? List.of(node.node()) : null, lockNode.getNumChildren());
    }

    private QueueNode create(LockRequest request, String lockPath, long deadline) throws InterruptedException {
        String protection = ZooKeeperLockQueue.protectionPrefix(request.ownerId());
        String base = lockPath + "/" + ZooKeeperLockQueue.nodePrefix(request.ownerId(), request.kind());
        byte[] data = ZooKeeperNodeData.encode(request.ownerId(), request.holder());
        while (true) {
            calls.checkOpen(request.name());
            Stat stat = new Stat();
            long sentAt = System.nanoTime();
            try {
                String path = calls.curator
                        .create()
                        .storingStatIn(stat)
                        .creatingParentContainersIfNeeded()
                        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                        .forPath(base, data);
                return new QueueNode(
                        path, path.substring(lockPath.length() + 1), stat.getCzxid(), stat.getEphemeralOwner(), sentAt);
            } catch (KeeperException.ConnectionLossException
                    | KeeperException.OperationTimeoutException
                    | KeeperException.SessionMovedException e) {
                // The create may have succeeded before the connection broke: look for our node.
                calls.awaitConnection(request.name(), "creating the queue node", deadline, e);
                QueueNode found = findOwn(request.name(), lockPath, protection, deadline);
                if (found != null) {
                    return found;
                }
            } catch (KeeperException.SessionExpiredException e) {
                // An ephemeral node of an expired session is gone: just create again.
                calls.awaitConnection(request.name(), "creating the queue node", deadline, e);
            } catch (KeeperException.NoAuthException e) {
                throw new LockUnavailableException(
                        calls.describe(request.name()) + ": ZooKeeper refused to create " + base
                                + " (no permission); give the URI's user create rights on " + root,
                        e);
            } catch (InterruptedException e) {
                // The create may have reached the server: remove what it may have left.
                cleanUpAfterInterrupt(request, lockPath);
                throw e;
            } catch (Exception e) {
                throw calls.failure(request.name(), "creating the queue node", e);
            }
        }
    }

    private QueueNode findOwn(String lockName, String lockPath, String protection, long deadline)
            throws InterruptedException {
        for (String child : calls.children(lockName, lockPath, deadline)) {
            if (child.startsWith(protection)) {
                String path = lockPath + "/" + child;
                long sentAt = System.nanoTime();
                Stat stat = calls.bounded(lockName, "reading the queue node", deadline, () -> calls.curator
                        .checkExists()
                        .forPath(path));
                if (stat != null) {
                    return new QueueNode(path, child, stat.getCzxid(), stat.getEphemeralOwner(), sentAt);
                }
            }
        }
        return null;
    }

    private void cleanUpAfterInterrupt(LockRequest request, String lockPath) {
        try {
            removeOwn(request, lockPath);
        } catch (RuntimeException | InterruptedException cleanup) {
            log.warn(
                    "{}: could not remove the queue node of an interrupted attempt; ZooKeeper removes it when"
                            + " the session ends: {}",
                    calls.describe(request.name()),
                    cleanup.toString());
        }
    }

    /**
     * Deletes whatever node the attempt of {@code request} may have created, found by its protection
     * prefix; nothing if it created none.
     */
    void removeOwn(LockRequest request, String lockPath) throws InterruptedException {
        String protection = ZooKeeperLockQueue.protectionPrefix(request.ownerId());
        long deadline = calls.deadline();
        for (String child : calls.children(request.name(), lockPath, deadline)) {
            if (child.startsWith(protection)) {
                calls.delete(request.name(), lockPath + "/" + child, deadline);
            }
        }
    }
}
