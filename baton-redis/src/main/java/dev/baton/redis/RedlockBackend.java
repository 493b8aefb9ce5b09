package dev.baton.redis;

import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.Waiting;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redlock over N independent Redis masters, as specified by Redis' distributed-lock page, with
 * fencing tokens added.
 *
 * <p>Acquire runs the single-instance acquire script on all N masters in parallel, each bounded by
 * a per-node timeout far below the lease time. The lock is granted only if a majority granted and
 * the time left, {@code validity = lease - elapsed - drift}, is positive; otherwise it is released
 * on every master and the core retries after a random (jittered) pause. The fencing token is the
 * maximum of the majority's counters; a second round raises each granting master's counter to that
 * maximum while the grant is still held there, so that any later majority, which shares at least one
 * master with this one, hands out a larger token ({@link RedlockMajority}).
 *
 * <p>On the servers a grant lives {@code lease + drift}; the client treats it as valid for {@code
 * lease} from the moment the request was sent (the core's monotonic clock), so a server clock that
 * runs up to {@code drift} fast does not expire it while the client still trusts it.
 *
 * <p>Renewal extends the grant on all masters; it succeeds while a majority still holds it, reports
 * the lease lost once a majority answers that it does not, and keeps retrying (until the lease time
 * runs out) while too few masters answer. Failure behaviour: when fewer than a majority of masters
 * answer at all, acquire throws {@link LockUnavailableException} after releasing on every master it
 * could reach.
 *
 * <p>Fair by default: a free lock goes to the longest-waiting exclusive waiter of any client, the
 * masters agreeing on it by a ticket each waiter draws once; a dead waiter holds the line for a
 * second or two at most, and two waiters never split the masters for more than one round. See
 * {@link RedlockTickets} for the design and its limits. {@code fair=false} is plain Redlock.
 *
 * <p>No semaphores: see {@link #supportsPermits()}.
 */
public final class RedlockBackend implements LockBackend {
    private static final Logger log = LoggerFactory.getLogger(RedlockBackend.class);

    private final String name;
    private final RedisKeys keys;
    private final ClientResources resources;
    private final List<RedisNode> nodes;
    private final RedlockMajority majority;
    private final int quorum;
    private final long operationTimeoutNanos;
    private final RedisNotifications notifications;
    private final RedlockTickets tickets;
    private final Waiting lineWaiting;
    private final Waiting pollWaiting;
    private final RedlockInspection inspection;

    /**
     * @param fair whether exclusive waiters queue by ticket ({@link RedlockTickets}); false is plain
     *     Redlock (barging)
     * @param pollMaxDelay the waiters' longest pause between attempts, which bounds how long a dead
     *     waiter's entry lasts
     */
    RedlockBackend(
            List<RedisURI> uris,
            String keyPrefix,
            Duration operationTimeout,
            Duration nodeTimeout,
            double driftFactor,
            Duration driftFixed,
            boolean fair,
            Duration pollMaxDelay) {
        this.keys = new RedisKeys(keyPrefix);
        this.resources = RedisResources.create();
        List<RedisNode> created = new ArrayList<>();
        for (RedisURI uri : uris) {
            created.add(new RedisNode(uri, resources, operationTimeout, true));
        }
        this.nodes = List.copyOf(created);
        this.operationTimeoutNanos = operationTimeout.plusSeconds(1).toNanos();
        this.name = "redlock (" + nodes.size() + " masters: "
                + String.join(",", nodes.stream().map(RedisNode::address).toList()) + ")";
        this.notifications = new RedisNotifications(
                nodes, keys, operationTimeout, (ScheduledExecutorService) resources.eventExecutorGroup());
        this.tickets = new RedlockTickets(fair, pollMaxDelay, nodeTimeout);
        this.majority = new RedlockMajority(
                name, keys, nodes, nodeTimeout, driftFactor, driftFixed, operationTimeoutNanos, tickets);
        this.quorum = majority.quorum();
        this.pollWaiting = Waiting.polling(notifications);
        this.lineWaiting = Waiting.queue(new RedisLine(
                this::tryAcquire, (request, wake) -> tickets.join(request, wake, notifications, this::leave)));
        this.inspection =
                new RedlockInspection(nodes, quorum, keys, fair ? "ticket-expiry" : null, operationTimeoutNanos, name);
    }

    @Override
    public String name() {
        return name;
    }

    /** Majority of the masters. */
    int quorum() {
        return quorum;
    }

    /**
     * No: Redlock has no safe semaphores. A majority bounds holders only for one permit. Each master
     * grants at most N permits of a name, and a permit counts once a quorum q of the M masters granted
     * it, so h holders need h * q grants among at most N * M: h can reach N * M / q, more than N
     * whenever N > 1. With M = 3 and N = 2, three holders granted on masters {1,2}, {2,3} and {1,3}
     * coexist. Requiring all M masters would bound holders by N, but then one master down or slow
     * stops every acquisition (and one that lost its data lets more in), which is what Redlock exists
     * to avoid. So {@code LockClient.semaphore(...)} is refused on a {@code redlock://} URI; use one
     * Redis server, Sentinel ({@code redis-sentinel://}, with {@code waitReplicas} for failover
     * safety) or a Cluster for semaphores.
     *
     * @return {@code false}
     */
    @Override
    public boolean supportsPermits() {
        return false;
    }

    /**
     * One Redlock attempt ({@link RedlockMajority#tryAcquire}); when too few masters answer (a master
     * that just came back may still be reconnecting), tries again after a short random pause until
     * the operation timeout is spent.
     */
    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        if (request.kind() == dev.baton.LockKind.PERMIT) {
            // The core never sends one (supportsPermits() is false); refuse any other caller clearly.
            throw new dev.baton.LockConfigurationException("Baton semaphore '" + request.name() + "' on " + name
                    + ": Redlock has no semaphores (a majority of masters does not bound the holders of more"
                    + " than one permit); use redis://, redis-sentinel:// or redis-cluster:// for semaphores");
        }
        return majority.tryAcquire(request);
    }

    /** Extends the grant on all masters at once; held while a majority extended it within validity. */
    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        return renewAll(List.of(grant), leaseTime).get(0);
    }

    /**
     * One script call per master for all {@code grants}, on every master at once; each grant is
     * decided as {@link #renew} decides it. If any grant is left undecided (neither a majority
     * extended it nor a majority no longer has it), the whole call fails and the core retries every
     * grant in it while they are valid.
     */
    @Override
    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        long drift = majority.driftMillis(leaseTime);
        long timeout = Math.max(majority.nodeTimeoutMillis(leaseTime), 1);
        long start = System.nanoTime();
        int count = grants.size();
        RedlockRound renewed = majority.round(timeout, node -> RedisRenewals.renew(
                        node, keys, grants, leaseTime.toMillis() + drift, RedisScripts.fenceTtlMillis(leaseTime))
                .thenApply(answers -> new ArrayList<Object>(answers)));
        long validity = leaseTime.toMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) - drift;
        List<Optional<Grant>> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int extended = 0;
            int notHeld = 0;
            for (List<Object> reply : renewed.replies()) {
                if (reply != null) {
                    if (((Optional<?>) reply.get(i)).isPresent()) {
                        extended++;
                    } else {
                        notHeld++;
                    }
                }
            }
            if (extended >= quorum && validity > 0) {
                out.add(Optional.of(grants.get(i).withExpiresAt(Instant.now().plusMillis(validity))));
            } else if (notHeld > nodes.size() - quorum) {
                out.add(Optional.empty()); // a majority no longer has it: lost
            } else {
                throw RedisFailures.unavailable(
                        grants.get(i).name(),
                        name,
                        "renew",
                        new IllegalStateException("only " + extended + " of " + nodes.size()
                                + " masters extended the lease, " + quorum
                                + " needed; retrying while the lease lasts (first failure: "
                                + renewed.firstFailure() + ")"));
            }
        }
        return out;
    }

    /** Up to {@link RedisRenewals#BATCH} grants per call to each master. */
    @Override
    public int renewalBatchSize() {
        return RedisRenewals.BATCH;
    }

    @Override
    public boolean release(Grant grant) {
        RedlockRound released = majority.releaseEverywhere(
                grant.name(), grant.ownerId(), grant.mode(), TimeUnit.NANOSECONDS.toMillis(operationTimeoutNanos));
        int held = 0;
        for (List<Object> reply : released.replies()) {
            if (reply != null && RedisScripts.number(reply.get(0)) == 1) {
                held++;
            }
        }
        if (released.answered() < quorum) {
            throw RedisFailures.unavailable(
                    grant.name(),
                    name,
                    "release",
                    new IllegalStateException("only " + released.answered() + " of " + nodes.size()
                            + " masters answered; the others free it when the lease runs out"));
        }
        return held > 0;
    }

    /**
     * A fair waiter that gave up leaves the queue on every master; sent without waiting, and if a
     * master misses it, the entry there expires by itself ({@link RedlockTickets}).
     */
    private void leave(LockRequest request) {
        String[] ticketKeys = keys.ticketKeys(request.name());
        for (RedisNode node : nodes) {
            try {
                node.eval(RedisScripts.REDLOCK_LEAVE, ScriptOutputType.INTEGER, ticketKeys, request.ownerId())
                        .exceptionally(e -> null);
            } catch (RuntimeException e) {
                log.debug("leaving the queue on {} failed: {}", node.address(), e.toString());
            }
        }
    }

    @Override
    public void abandon(LockRequest request) {
        // tryAcquire already released everywhere it could before failing; this covers an attempt
        // whose outcome was not seen at all. Sent without waiting, in order after the attempt.
        String[] lockKeys = keys.keys(request.name(), request.mode());
        for (RedisNode node : nodes) {
            try {
                node.eval(
                                RedisScripts.RELEASE,
                                ScriptOutputType.INTEGER,
                                lockKeys,
                                request.ownerId(),
                                RedisScripts.modeArg(request.mode()),
                                keys.channel(request.name()))
                        .exceptionally(e -> null);
            } catch (RuntimeException e) {
                log.debug("abandon on {} failed: {}", node.address(), e.toString());
            }
        }
    }

    /** A fair client's exclusive waiters stand in the tickets' line; the others poll, woken by releases. */
    @Override
    public Waiting waiting(LockKind kind) {
        return tickets.fair() && kind.mode() == LockMode.EXCLUSIVE ? lineWaiting : pollWaiting;
    }

    /** What the masters report: the holders a majority of them has ({@link RedlockInspection}). */
    @Override
    public Optional<LockInfo> inspect(String lockName) {
        return inspection.inspect(lockName);
    }

    /**
     * Scans every master's key space in batches ({@code SCAN ... MATCH ... COUNT}, see {@link
     * RedisLockScan}), master by master, and keeps the holders a majority has; waiters are counted
     * from the fair tickets (not with {@code fair=false}).
     */
    @Override
    public List<LockInfo> list(String prefix) {
        return inspection.list(prefix);
    }

    @Override
    public String listingMethod() {
        return RedisLockScan.method(keys, "on each of the " + nodes.size() + " masters");
    }

    /**
     * On every master, raises the fencing counter above every master's broken token and releases
     * the holder, publishing as a release does ({@link RedlockInspection}); the broken holder's next
     * renewal finds a majority without its grant and reports the lease lost.
     */
    @Override
    public List<LockInfo> forceRelease(String lockName, String ownerId) {
        return inspection.forceRelease(lockName, ownerId);
    }

    @Override
    public void close() {
        for (RedisNode node : nodes) {
            node.close();
        }
        RedisResources.shutdown(resources);
    }

    @Override
    public String toString() {
        return "RedlockBackend[" + name + "]";
    }
}
