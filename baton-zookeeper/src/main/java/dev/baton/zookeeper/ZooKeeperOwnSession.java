package dev.baton.zookeeper;

import dev.baton.LockUnavailableException;
import dev.baton.zookeeper.ZooKeeperQueueProtocol.QueueNode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * One waiter's reads in the session that owns its queue node, and what they prove: that the session,
 * and with it the node, still lives. A waiter may take the lock only on answers from that session,
 * and only while the session is known to live.
 *
 * <p>Why it must: an answer, or a watch event, can be read long after the server sent it. A client
 * stopped (SIGSTOP, a long GC pause) past its session timeout finds, when it runs again, the answers
 * and events that arrived before the stop, and only then learns that its session expired, which took
 * its node with it and let the next waiter take the lock. Taking the lock on such an answer held it
 * beside that waiter (`baton check --faults pause` found it). The order in which the client library
 * then reports the answer, the deletion, the disconnection and the expiry cannot tell it apart.
 *
 * <p>The proof costs no round trip: the server touches a session whenever a request of it arrives,
 * and expires it only after hearing nothing from it for the session timeout. So a request of the
 * node's session, sent at {@code t} and answered, proves the session alive until at least {@code t}
 * plus the session timeout; this class trusts it for half of that ({@link #trusted}), which leaves a
 * follower time to pass the session's touch on to the leader (at most a tick, and a session lasts at
 * least two). The waiter's own reads are that proof: the answer that put its node into the queue, its
 * listings and the reads that set its watches. A waiter that decides within that time, on a
 * connection still in the node's session, needs no further read; one that waited longer, or was
 * stopped, or is disconnected, reads its node once more ({@link #confirm}) and takes the lock only on
 * a fresh answer of the node's session; an expired or other session fails the attempt.
 */
final class ZooKeeperOwnSession {
    /** Sends one request on {@code zk}; paths are the server's, with Curator's namespace. */
    @FunctionalInterface
    interface HandleCall<T> {
        T call(ZooKeeper zk) throws Exception;
    }

    private final ZooKeeperCalls calls;
    private final String lockName;
    private final QueueNode own;
    /** When the latest request of the node's session that the server answered was sent. */
    private long answeredSentAt;
    /**
     * The session timeout the server negotiated, as the connection in the node's session reported it
     * with the latest answer or confirmation; 0 until then.
     */
    private int sessionTimeoutMillis;

    ZooKeeperOwnSession(ZooKeeperCalls calls, String lockName, QueueNode own) {
        this.calls = calls;
        this.lockName = lockName;
        this.own = own;
        this.answeredSentAt = own.seenAt();
    }

    /** How long after its send an answered request of a session proves the session alive. */
    static long trusted(int sessionTimeoutMillis) {
        return sessionTimeoutMillis * 500_000L; // half the session timeout, in nanoseconds
    }

    /**
     * One call in the node's session, retried after a connection loss within the operation timeout;
     * its answer (also "no node") counts as proof that the session lived when it was sent.
     *
     * @throws ZooKeeperCalls.NoNode if the call found no node
     * @throws LockUnavailableException if the node's session expired, or the client is in another
     *     one (the node went with its session), or the server did not answer in time
     */
    <T> T read(String what, HandleCall<T> call) throws InterruptedException {
        long deadline = calls.deadline();
        while (true) {
            calls.checkOpen(lockName);
            ZooKeeper zk = calls.connectedHandle();
            if (zk == null) {
                calls.awaitConnection(lockName, what, deadline, new KeeperException.ConnectionLossException());
                continue;
            }
            if (zk.getSessionId() != own.session()) {
                throw vanished();
            }
            long sentAt = System.nanoTime();
            try {
                T answer = call.call(zk);
                answered(sentAt, zk);
                return answer;
            } catch (KeeperException.NoNodeException e) {
                answered(sentAt, zk);
                throw new ZooKeeperCalls.NoNode();
            } catch (KeeperException.SessionExpiredException e) {
                throw vanished();
            } catch (KeeperException.ConnectionLossException
                    | KeeperException.OperationTimeoutException
                    | KeeperException.SessionMovedException e) {
                calls.awaitConnection(lockName, what, deadline, e);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw calls.failure(lockName, what, e);
            }
        }
    }

    private void answered(long sentAt, ZooKeeper zk) {
        if (sentAt - answeredSentAt > 0) {
            answeredSentAt = sentAt;
        }
        sessionTimeoutMillis = zk.getSessionTimeout();
    }

    /**
     * When the latest request of the node's session that the server answered was sent ({@link
     * System#nanoTime()}): the node lives at least the {@link #sessionTimeoutMillis() session timeout}
     * from then ({@link ZooKeeperSessionBound}).
     */
    long answeredSentAt() {
        return answeredSentAt;
    }

    /** The negotiated session timeout seen with the latest answer or {@link #confirm()}; 0 before. */
    int sessionTimeoutMillis() {
        return sessionTimeoutMillis;
    }

    /**
     * Returns when the node's session is known to live now, so that a decision made on its answers
     * holds: at once if an answer of it is recent enough and the client is still connected in it,
     * else after one more read of the node, in that session.
     *
     * @throws LockUnavailableException if the node is gone (its session expired, or the client is in
     *     another one), or its session could not be confirmed within the operation timeout
     */
    void confirm() throws InterruptedException {
        long deadline = calls.deadline();
        while (true) {
            ZooKeeper zk = calls.connectedHandle();
            if (zk != null
                    && zk.getSessionId() == own.session()
                    && System.nanoTime() - answeredSentAt < trusted(zk.getSessionTimeout())) {
                sessionTimeoutMillis = zk.getSessionTimeout();
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new LockUnavailableException(calls.describe(lockName) + ": could not confirm within the"
                        + " operation timeout that the session of the queue node " + own.path()
                        + " still lives; retry");
            }
            Stat stat;
            try {
                stat = read(
                        "checking the queue node",
                        handle -> handle.exists(calls.namespace + own.path(), (Watcher) null));
            } catch (ZooKeeperCalls.NoNode e) {
                stat = null;
            }
            if (stat == null || stat.getCzxid() != own.czxid() || stat.getEphemeralOwner() != own.session()) {
                throw vanished();
            }
        }
    }

    LockUnavailableException vanished() {
        return new LockUnavailableException(calls.describe(lockName) + ": the queue node " + own.path()
                + " vanished while waiting (the ZooKeeper session expired); retry");
    }
}
