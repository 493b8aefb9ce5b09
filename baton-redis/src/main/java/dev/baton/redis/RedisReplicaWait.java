package dev.baton.redis;

import dev.baton.LockUnavailableException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code waitReplicas=N} option: a write of a grant (acquire, renewal) counts only once N
 * replicas acknowledged it, as Redis's {@code WAIT N timeout} reports right after it. Redis
 * replicates asynchronously, so without it a failover can promote a replica that never received a
 * grant the master gave, and the lock is granted twice.
 *
 * <p>Why {@code WAIT} on the shared command connection covers our write: the master remembers, per
 * client connection, the replication offset right after that connection's latest write, and {@code
 * WAIT} blocks until N replicas acknowledged that offset ("all the previous write commands sent in
 * the context of the current connection"; redis.io/commands/wait). Every thread shares the one
 * command connection ({@link RedisNode}), so between our script and our {@code WAIT} other threads'
 * writes may come; they only raise that offset, and the offset is one position in the master's one
 * replication stream, so acknowledging it acknowledges our earlier write too. For the same reason a
 * grant written by another client (a lock handed over by its release) is covered once this client
 * wrote after it: the acquire of a handed-over lock goes to the server when this option is on.
 *
 * <p>What would break that: {@code WAIT} on a different server-side connection than the write, as
 * after a reconnect (its offset starts afresh, so it would answer at once). {@link RedisNode} counts
 * the command connection's disconnects and reconnects; a change between the write and the {@code
 * WAIT} makes the write count as unconfirmed.
 *
 * <p>On a Redis Cluster the routing cluster connection would send {@code WAIT} to an arbitrary
 * node, so while the wait is on, a write, its {@code INFO replication} and its {@code WAIT} go on
 * the client's node connection to the master of the written key's slot ({@link
 * RedisNode#routeFor}, recorded in the {@link Mark}); the argument above holds per master, and a
 * reconnect of that node connection between the write and {@code WAIT} counts as a change.
 *
 * <p>The default on Sentinel and Cluster ({@link #AUTO}, {@code waitReplicas} absent): wait for one replica
 * whenever the master has one connected, as Redisson's {@code checkLockSyncedSlaves} does. The
 * master is asked how many replicas it has ({@code INFO replication}) in the same pipeline as the
 * write, sent just before it, so this costs no round trip of its own; with none connected the write
 * counts as it is (nothing could acknowledge it, and refusing would make a lone master useless),
 * with one or more it must be acknowledged by one. A replica that connects after that question
 * receives the write in its initial synchronisation. {@code waitReplicas=0} turns this off.
 *
 * <p>Cost: one more round trip per grant and per renewal call, and while replicas are slow to
 * acknowledge, the client's other commands wait behind {@code WAIT} on the shared connection (Redis
 * runs a connection's commands in order). The wait is bounded by three quarters of the operation
 * timeout, so that its answer (how many replicas acknowledged) arrives before the operation timeout
 * gives up on the command.
 */
final class RedisReplicaWait {
    private static final Logger log = LoggerFactory.getLogger(RedisReplicaWait.class);

    /** How often one attempt writes its grant when a reconnect spoils the WAIT. */
    private static final int MAX_GRANT_WRITES = 2;

    /** How often one write follows a slot that moved (Cluster): once per topology change it saw. */
    private static final int MAX_REDIRECTS = 2;

    /**
     * {@code waitReplicas} absent on Sentinel: one replica must acknowledge whenever the master has
     * one connected.
     */
    static final int AUTO = -1;

    /**
     * Taken before a write: the command connection's changes so far, and with {@link #AUTO} the
     * master's answer to how many replicas it has connected, asked in the same pipeline.
     */
    record Mark(long changes, CompletableFuture<Long> connectedReplicas, RedisConnector.Commands via) {}

    private final RedisNode node;
    private final int replicas;
    private final long waitMillis;
    private final long timeoutNanos;

    /**
     * @param replicas how many replicas must acknowledge; 0 turns the wait off; {@link #AUTO} waits
     *     for one whenever the master has one connected
     * @param operationTimeout the client's bound on one round trip
     */
    RedisReplicaWait(RedisNode node, int replicas, Duration operationTimeout) {
        this.node = node;
        this.replicas = replicas;
        this.waitMillis = Math.max(1, operationTimeout.toMillis() * 3 / 4); // WAIT n 0 would block forever
        this.timeoutNanos = operationTimeout.plusSeconds(1).toNanos();
    }

    boolean enabled() {
        return replicas != 0;
    }

    int replicas() {
        return replicas;
    }

    /**
     * A mark to take right before sending a write of {@code key} that {@link #unconfirmed} will
     * check; with {@link #AUTO} it sends {@code INFO replication} ahead of the write. The write must
     * go on the mark's {@link Mark#via() connection} ({@link RedisNode#eval(RedisConnector.Commands,
     * RedisScripts.Script, io.lettuce.core.ScriptOutputType, String[], String...)}): on a Cluster,
     * while the wait is on, the node connection to the master of the key's slot, so that the write,
     * the question and {@code WAIT} all reach that master on one connection; otherwise {@code null}
     * (the shared command connection, routed on a Cluster).
     *
     * @param subject the lock or semaphore for messages, as in {@code Baton lock 'x'}
     * @param action the write, for messages, as in {@code acquire}
     * @throws LockUnavailableException if the key's master cannot be reached within the timeout
     */
    Mark beforeWrite(String key, String subject, String backend, String action) {
        return mark(route(key, subject, backend, action));
    }

    /**
     * {@link #beforeWrite} for one of several writes (a renewal batch: one script per Cluster slot),
     * sharing one mark per connection in {@code marks}: one {@code WAIT} after a connection's last
     * write covers all its writes, so the batch waits once per master, not once per slot.
     */
    Mark beforeWrite(String key, String subject, String backend, String action, Map<Object, Mark> marks) {
        RedisConnector.Commands via = route(key, subject, backend, action);
        return marks.computeIfAbsent(via == null ? this : via.connection(), connection -> mark(via));
    }

    private RedisConnector.Commands route(String key, String subject, String backend, String action) {
        if (!enabled() || !node.isCluster()) {
            return null;
        }
        return RedisFailures.awaitAs(node.routeFor(key), timeoutNanos, subject, backend, action);
    }

    private Mark mark(RedisConnector.Commands via) {
        // Read after the node connection is open: its first connect is not a change.
        long changes = node.connectionChanges(via);
        return new Mark(changes, replicas == AUTO ? node.connectedReplicas(via) : null, via);
    }

    /** Whether the command connection dropped or came back since {@code mark} was taken. */
    boolean connectionChangedSince(Mark mark) {
        return node.connectionChanges(mark.via()) != mark.changes();
    }

    /**
     * Sends {@code WAIT} after a write that succeeded and tells why the write does not count, if it
     * does not: too few replicas acknowledged it, the connection changed since {@code mark}, or
     * {@code WAIT} itself failed. Never throws; bounded by the operation timeout.
     *
     * @param what the write, for the message, such as {@code "the grant"}
     * @return empty if at least {@link #replicas()} replicas acknowledged the write (with {@link
     *     #AUTO}: one, or none when the master had none connected)
     */
    Optional<String> unconfirmed(Mark mark, String what) {
        int needed = replicas;
        if (replicas == AUTO) {
            long connected;
            try {
                connected = RedisFailures.await(mark.connectedReplicas(), timeoutNanos, "", "", "INFO replication");
            } catch (LockUnavailableException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                return Optional.of("asking the master for its replicas (INFO replication) failed: "
                        + RedisFailures.explain(cause)
                        + "; this default needs the INFO command (an ACL user needs +info), or give"
                        + " waitReplicas=N to wait for N replicas without asking (waitReplicas=0: no wait)");
            }
            if (connected == 0) {
                return Optional.empty(); // no replica to acknowledge it, nor to be promoted without it
            }
            needed = 1;
        }
        long acknowledged;
        try {
            acknowledged = RedisFailures.await(
                    node.waitForReplicas(mark.via(), needed, waitMillis), timeoutNanos, "", "", "WAIT");
        } catch (LockUnavailableException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return Optional.of("WAIT for " + needed + " " + noun(needed) + " failed: " + RedisFailures.explain(cause));
        }
        if (connectionChangedSince(mark)) {
            return Optional.of("the connection to the master dropped or was re-established between the write and"
                    + " WAIT, so WAIT (which counts one connection's writes) cannot vouch for " + what
                    + "; try again once the connection is stable");
        }
        if (acknowledged < needed) {
            String asked = replicas == AUTO
                    ? "(the default while the master has a replica connected; waitReplicas=0 turns it off)"
                    : "(waitReplicas=" + replicas + ")";
            return Optional.of(acknowledged + " of the " + needed + " " + noun(needed) + " asked for " + asked
                    + " acknowledged " + what + " within " + waitMillis
                    + " ms, so a failover could lose it; check that the master's replicas are up, connected and"
                    + " keeping up (INFO replication on the master), or lower waitReplicas");
        }
        return Optional.empty();
    }

    /**
     * Writes a grant of {@code key} with {@code write} on the connection it is given ({@link
     * #beforeWrite}; an acquire script, idempotent for its owner: a reply above
     * 0 means granted) and, when enabled, makes it count: {@code WAIT} after it; when the connection
     * changed between the write and {@code WAIT} (say, it came back just as the script was sent),
     * writes once more on the connection as it is now and waits again. A grant that still does not
     * count is released with {@code release} (awaited, so nothing of the attempt is left) and the
     * attempt fails. A grant acknowledged so late that less than a third of {@code leaseTime} is left
     * of it (a slow replica, a WAIT longer than the lease) is released too and counts as not granted:
     * its key may already have expired on the master and another owner may hold the lock, so handing
     * it to the caller would give a lease that is dead, or dies before its first renewal.
     *
     * @param subject the lock or semaphore for messages, as in {@code Baton lock 'x'}
     * @param what {@code grant} or {@code permit}
     * @return the write's reply
     * @throws LockUnavailableException if too few replicas acknowledged the grant
     */
    long confirmedGrant(
            String key,
            ToLongFunction<RedisConnector.Commands> write,
            Supplier<CompletableFuture<Long>> release,
            String subject,
            String backend,
            String what,
            Duration leaseTime) {
        long sentNanos = System.nanoTime();
        Written written = write(key, write, subject, backend);
        for (int attempt = 1; written.reply() > 0 && enabled(); attempt++) {
            Optional<String> unconfirmed = unconfirmed(written.mark(), "the " + what);
            if (unconfirmed.isEmpty()) {
                break;
            }
            if (!connectionChangedSince(written.mark()) || attempt == MAX_GRANT_WRITES) {
                throw discard(release, subject, backend, what, unconfirmed.get());
            }
            written = write(key, write, subject, backend);
        }
        if (written.reply() > 0 && enabled()) {
            long left = leaseTime.toNanos() - (System.nanoTime() - sentNanos);
            if (left < leaseTime.toNanos() / 3) {
                LockUnavailableException late = discard(
                        release,
                        subject,
                        backend,
                        what,
                        "the replica acknowledged it "
                                + Duration.ofNanos(leaseTime.toNanos() - left).toMillis()
                                + " ms after it was sent, with less than a third of its lease time ("
                                + leaseTime.toMillis() + " ms) left");
                log.debug("{}; the attempt counts as refused", late.getMessage());
                return 0;
            }
        }
        return written.reply();
    }

    private record Written(Mark mark, long reply) {}

    /**
     * One write of a grant on its mark's connection. On a Cluster a slot that moved to another
     * master answers MOVED on the old master's node connection, without running the script; the
     * topology is then re-read ({@link RedisNode#eval(RedisConnector.Commands, RedisScripts.Script,
     * io.lettuce.core.ScriptOutputType, String[], String...)}) and the write goes to the new master.
     */
    private Written write(String key, ToLongFunction<RedisConnector.Commands> write, String subject, String backend) {
        for (int redirects = 0; ; redirects++) {
            Mark mark = beforeWrite(key, subject, backend, "acquire");
            try {
                return new Written(mark, write.applyAsLong(mark.via()));
            } catch (LockUnavailableException e) {
                if (mark.via() == null || !RedisFailures.redirected(e) || redirects == MAX_REDIRECTS) {
                    throw e;
                }
            }
        }
    }

    private LockUnavailableException discard(
            Supplier<CompletableFuture<Long>> release, String subject, String backend, String what, String why) {
        String outcome = "it was released";
        LockUnavailableException releaseFailure = null;
        try {
            RedisFailures.awaitAs(release.get(), timeoutNanos, subject, backend, "release of the unconfirmed " + what);
        } catch (LockUnavailableException e) {
            releaseFailure = e;
            outcome = "releasing it failed too, so it expires after its lease time";
        }
        LockUnavailableException failure = new LockUnavailableException(subject + " on " + backend
                + ": acquire failed: the " + what + " does not count: " + why + "; " + outcome);
        if (releaseFailure != null) {
            failure.addSuppressed(releaseFailure);
        }
        return failure;
    }

    private static String noun(int count) {
        return count == 1 ? "replica" : "replicas";
    }
}
