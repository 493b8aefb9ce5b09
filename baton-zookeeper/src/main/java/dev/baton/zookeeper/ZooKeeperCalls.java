package dev.baton.zookeeper;

import dev.baton.LockUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ZooKeeper client as the backend uses it: every call bounded by the operation timeout (a
 * connection loss is retried, after waiting for the connection, until that time runs out, and then
 * reported as {@link LockUnavailableException}), failures worded with the lock and the backend, and
 * the one flag that says the backend was closed.
 */
final class ZooKeeperCalls {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperCalls.class);
    /**
     * Marks a name as a semaphore's for {@link #describe}: a control character, which no valid lock
     * name contains (see {@code LockNames} in baton-core).
     */
    private static final char SEMAPHORE_TAG = '\u0001';

    final CuratorFramework curator;
    /** Curator's namespace as a path prefix, for calls made on the ZooKeeper handle directly. */
    final String namespace;

    private final ZooKeeperUri uri;
    private final String backendName;
    private final long operationTimeoutNanos;
    private volatile boolean closed;

    ZooKeeperCalls(ZooKeeperUri uri, CuratorFramework curator, Duration operationTimeout) {
        this.uri = uri;
        this.curator = curator;
        String ns = curator.getNamespace();
        this.namespace = ns == null || ns.isEmpty() ? "" : "/" + ns;
        this.backendName = "zookeeper (" + uri.connectStringWithChroot() + ")";
        this.operationTimeoutNanos = operationTimeout.toNanos();
    }

    String backendName() {
        return backendName;
    }

    /** The deadline of a call that starts now. */
    long deadline() {
        return System.nanoTime() + operationTimeoutNanos;
    }

    /** One ZooKeeper call. */
    @FunctionalInterface
    interface Call<T> {
        T call() throws Exception;
    }

    /** Thrown by {@link #bounded} for a node that does not exist. */
    static final class NoNode extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoNode() {
            super(null, null, false, false);
        }
    }

    /**
     * Runs one call, retrying after a connection loss while {@code deadline} allows (ZooKeeper calls
     * that failed with a connection loss may or may not have been applied: only idempotent calls go
     * through here; create has its own protection).
     *
     * @throws NoNode if the call found no node
     */
    <T> T bounded(String lockName, String what, long deadline, Call<T> call) throws InterruptedException {
        while (true) {
            checkOpen(lockName);
            try {
                return call.call();
            } catch (KeeperException.NoNodeException e) {
                throw new NoNode();
            } catch (KeeperException.ConnectionLossException
                    | KeeperException.OperationTimeoutException
                    | KeeperException.SessionMovedException
                    | KeeperException.SessionExpiredException e) {
                awaitConnection(lockName, what, deadline, e);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw failure(lockName, what, e);
            }
        }
    }

    /** Waits for the connection until {@code deadline}; throws if it does not come back in time. */
    void awaitConnection(String lockName, String what, long deadline, Exception cause) throws InterruptedException {
        long remaining = deadline - System.nanoTime();
        checkOpen(lockName);
        if (remaining <= 0
                || !curator.blockUntilConnected(
                        (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)), TimeUnit.MILLISECONDS)) {
            throw new LockUnavailableException(
                    describe(lockName) + ": ZooKeeper did not answer while " + what + " within the operation timeout ("
                            + Duration.ofNanos(operationTimeoutNanos) + ")" + (cause == null ? "" : ": " + cause)
                            + "; check that a quorum of " + uri.connectString() + " is reachable",
                    cause);
        }
    }

    /** The ZooKeeper handle if the client is connected now, else null (then Curator's calls wait). */
    ZooKeeper connectedHandle() {
        try {
            return curator.getZookeeperClient().isConnected()
                    ? curator.getZookeeperClient().getZooKeeper()
                    : null;
        } catch (Exception e) {
            return null;
        }
    }

    /** The id of the session the client is connected in now, or 0 when it is not connected. */
    long liveSessionId() {
        ZooKeeper zk = connectedHandle();
        return zk == null ? 0 : zk.getSessionId();
    }

    /**
     * Whether the client's handle has had a session: false while it has never connected, when no
     * request of it can have reached the server and no node of it can exist. True when it cannot tell.
     */
    boolean hasHadSession() {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionId() != 0;
        } catch (Exception e) {
            return true;
        }
    }

    /** The children of {@code lockPath}; empty if it does not exist. */
    List<String> children(String lockName, String lockPath, long deadline) throws InterruptedException {
        try {
            return bounded(lockName, "listing the queue", deadline, () -> curator.getChildren()
                    .forPath(lockPath));
        } catch (NoNode e) {
            return List.of();
        }
    }

    /**
     * Deletes {@code path}; false if it did not exist. One call on the connected handle; anything
     * but success or "no node" (a connection loss, say) goes through Curator's guaranteed delete,
     * which retries within {@code deadline} and otherwise keeps trying in the background.
     */
    boolean delete(String lockName, String path, long deadline) throws InterruptedException {
        checkOpen(lockName);
        ZooKeeper zk = connectedHandle();
        if (zk != null) {
            try {
                zk.delete(namespace + path, -1);
                return true;
            } catch (KeeperException.NoNodeException e) {
                return false;
            } catch (KeeperException.SessionExpiredException e) {
                // Gone with that session (a node of a newer one is deleted through a newer handle).
                return false;
            } catch (KeeperException e) {
                log.debug("{}: deleting {} failed ({}); retrying through Curator", backendName, path, e.toString());
            }
        }
        try {
            bounded(lockName, "deleting the queue node", deadline, () -> {
                curator.delete().guaranteed().forPath(path);
                return null;
            });
            return true;
        } catch (NoNode e) {
            return false;
        }
    }

    /** {@link #delete}, logging instead of throwing; keeps the thread's interrupt status. */
    void deleteQuietly(String lockName, String path) {
        boolean interrupted = Thread.interrupted();
        try {
            delete(lockName, path, deadline());
        } catch (InterruptedException e) {
            interrupted = true;
        } catch (RuntimeException e) {
            log.warn(
                    "{}: could not remove queue node {}; ZooKeeper removes it when the session ends: {}",
                    describe(lockName),
                    path,
                    e.toString());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Deletes {@code path} without waiting, on the connected handle; {@code retry} runs when that
     * could not be done (not connected, a connection loss), so that the caller tries again later.
     * An expired session counts as done: its nodes went with it, and a node of a newer session is
     * deleted through a newer handle. Not Curator's guaranteed delete: after a stop past the session
     * timeout it retried on the expired handle at every RECONNECTED, and each failure posted LOST,
     * thousands a second, which kept renewals from getting through (`baton check --faults pause`).
     */
    void deleteInBackground(String path, Runnable retry) {
        ZooKeeper zk = connectedHandle();
        if (zk == null) {
            retry.run();
            return;
        }
        zk.delete(
                namespace + path,
                -1,
                (rc, p, ctx) -> {
                    KeeperException.Code code = KeeperException.Code.get(rc);
                    if (code != KeeperException.Code.OK
                            && code != KeeperException.Code.NONODE
                            && code != KeeperException.Code.SESSIONEXPIRED) {
                        log.debug("{}: background delete of {} failed: {}", backendName, path, code);
                        retry.run();
                    }
                },
                null);
    }

    LockUnavailableException failure(String lockName, String what, Exception e) {
        if (closed) {
            return closedException(lockName);
        }
        if (e instanceof LockUnavailableException unavailable) {
            return unavailable;
        }
        return new LockUnavailableException(
                describe(lockName) + ": ZooKeeper failed while " + what + ": " + e
                        + "; check the server log and the URI's credentials",
                e);
    }

    void checkOpen(String lockName) {
        if (closed) {
            throw closedException(lockName);
        }
    }

    boolean isClosed() {
        return closed;
    }

    private LockUnavailableException closedException(String lockName) {
        return new LockUnavailableException(describe(lockName)
                + ": the client is closed; create a new client with Baton.connect to take locks again");
    }

    /**
     * How messages name a lock, or a semaphore given as its {@link #semaphoreSubject}: the protocol
     * classes pass the name they were given to every call for its messages, and a semaphore's
     * mutex and lease nodes go through the same classes as locks.
     */
    String describe(String lockName) {
        if (!lockName.isEmpty() && lockName.charAt(0) == SEMAPHORE_TAG) {
            return "Baton semaphore '" + lockName.substring(1) + "' on " + backendName;
        }
        return "Baton lock '" + lockName + "' on " + backendName;
    }

    /** The name {@link #describe} words as {@code Baton semaphore 'name'}. */
    static String semaphoreSubject(String name) {
        return SEMAPHORE_TAG + name;
    }

    /** Refuses every call from now on. */
    void markClosed() {
        closed = true;
    }

    /** Closes the session, which removes every ephemeral node it still has. */
    void closeSession() {
        curator.close();
    }
}
