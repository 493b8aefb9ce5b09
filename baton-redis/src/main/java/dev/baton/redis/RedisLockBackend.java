package dev.baton.redis;

import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications.Subscription;
import dev.baton.spi.WaitQueue;
import dev.baton.spi.Waiting;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks on one Redis server, or on the master a Sentinel names (followed through failovers by
 * Lettuce). Acquire, renew and release are each one Lua script run with EVALSHA ({@link
 * RedisScripts}). An exclusive waiter queues in Redis and a release hands the lock straight to the
 * first live waiter, waking only that one ({@link RedisWaitQueue}); other waiters are woken by a
 * PUBLISH on the lock's channel. So the lock is fair: a waiter of another client comes before the
 * releasing client's immediate re-acquire. With {@code fair=false} (URI or {@code
 * LockOptions.fair(false)}) exclusive waiters do not queue: a release frees the lock and publishes,
 * and whoever asks first takes it (barging, which can starve other clients' waiters).
 *
 * <p>Guarantees: a grant is a key that expires after the lease time on the server's clock; renew
 * and release act only when the owner id matches; fencing tokens strictly increase per name
 * (across restarts too, as long as the server clock does not go back). Limits: a single server is a
 * single point of truth; after a failover to a replica that had not yet received the grant, or a
 * restart without persistence, a second owner may be granted while the first still holds, which
 * the first learns at its next renewal. Use the fencing token to reject its late writes.
 *
 * <p>Replicas ({@code waitReplicas=N} on {@code redis://}, {@code redis-sentinel://} and {@code
 * redis-cluster://} URIs; on Sentinel and Cluster, by default, one replica whenever the master has
 * one connected, see {@link RedisReplicaWait#AUTO}; on a Cluster, {@code WAIT} goes to the master of
 * the lock's slot): a grant counts only once N replicas acknowledged it ({@code WAIT} on the same connection right after
 * the acquire script; see {@link RedisReplicaWait}). Otherwise it is released (only if still ours)
 * and the attempt fails with {@link dev.baton.LockUnavailableException} saying how many replicas
 * acknowledged. A renewal that is not acknowledged counts as failed (the core retries it while the
 * lease is valid); a lock handed over by a release counts after the waiter's own write and {@code
 * WAIT}. A grant then survives a failover to a replica that acknowledged it; it can still be lost if
 * Sentinel promotes a replica that did not (ask for as many replicas as it may choose from), or if
 * the master and those replicas all lose it. It costs a round trip per grant and per renewal call.
 *
 * <p>Renewal: up to {@link RedisRenewals#BATCH} of a client's grants in one script call ({@link
 * #renewAll}); on a Cluster, one call per hash slot of the batch, sent together.
 *
 * <p>Server memory per distinct lock name: besides the lock key (gone with its lease), the fencing
 * counter key {@code <prefix>{<name>}:fence} stays for {@link RedisScripts#fenceTtlMillis its time to live}
 * after the name's last grant or renewal: at least a day and ten lease times. It costs the key's
 * length plus on the order of 100 bytes (an integer value with an expiry), so a workload that locks
 * a million distinct names a day keeps about a million such keys. That time to live is the bound:
 * once it expires, the next grant of the name reseeds the counter from the server clock (see
 * {@link RedisScripts}), so tokens keep increasing. To watch or evict these keys separately, give
 * such workloads their own key prefix ({@code ?prefix=}); better, reuse names (one lock per
 * resource, not per request).
 *
 * <p>Semaphores ({@link #supportsPermits()}): permits are a sorted set of holders scored by their
 * expiry on the server's clock, a fencing counter and the recorded permit count, in keys of their
 * own ({@code <prefix>sem:{<name>}:...}); one script takes a permit atomically, renewal rides in the
 * same batched script as locks, and a release wakes waiters by {@code PUBLISH} on the semaphore's
 * channel. See {@link RedisPermits}. Replicas ({@code waitReplicas}) and failover behave as for
 * locks: a permit lost in a failover lets one more holder in until the first learns at its renewal.
 *
 * <p>Failure behaviour: every call is bounded by the operation timeout and reports an unreachable,
 * refusing or non-scripting server with {@link dev.baton.LockUnavailableException}.
 */
public final class RedisLockBackend implements LockBackend {
    private static final Logger log = LoggerFactory.getLogger(RedisLockBackend.class);

    private final String name;
    private final RedisKeys keys;
    private final ClientResources resources;
    private final RedisNode node;
    private final RedisNotifications notifications;
    private final RedisWaitQueue waitQueue;
    private final Waiting permitWaiting;
    private final Waiting broadcastWaiting;
    private final Waiting handOverWaiting;
    private final long timeoutNanos;
    private final RedisReplicaWait replicaWait;
    private final RedisPermits permits;
    private final boolean fair;
    private final Duration pollMaxDelay;

    /**
     * @param waitReplicas how many replicas must acknowledge a grant before it counts ({@link
     *     RedisReplicaWait}); 0 for none
     * @param fair whether exclusive waiters queue for a hand-over; false lets a release free the lock
     *     for whoever asks first (barging)
     * @param pollMaxDelay the waiters' longest pause between attempts, which bounds how long a queue
     *     entry outlives its waiter's latest attempt ({@link #queueEntryTtlMillis})
     */
    RedisLockBackend(
            String scheme,
            RedisURI uri,
            String keyPrefix,
            Duration operationTimeout,
            int waitReplicas,
            boolean fair,
            Duration pollMaxDelay) {
        this(
                scheme,
                keyPrefix,
                operationTimeout,
                RedisResources.create(),
                resources -> new RedisNode(uri, resources, operationTimeout, false),
                waitReplicas,
                fair,
                pollMaxDelay);
    }

    /** With the node {@code nodeFactory} makes on {@code resources}, which this backend owns (Redis Cluster). */
    RedisLockBackend(
            String scheme,
            String keyPrefix,
            Duration operationTimeout,
            ClientResources resources,
            java.util.function.Function<ClientResources, RedisNode> nodeFactory,
            int waitReplicas,
            boolean fair,
            Duration pollMaxDelay) {
        this.fair = fair;
        this.pollMaxDelay = pollMaxDelay;
        this.keys = new RedisKeys(keyPrefix);
        this.resources = resources;
        this.node = nodeFactory.apply(resources);
        this.name = scheme + " " + node.address();
        // One second on top of Lettuce's own command timeout: its timeout fires first and says more.
        this.timeoutNanos = operationTimeout.plusSeconds(1).toNanos();
        this.replicaWait = new RedisReplicaWait(node, waitReplicas, operationTimeout);
        this.permits = new RedisPermits(node, keys, replicaWait, name, timeoutNanos);
        this.notifications = new RedisNotifications(
                List.of(node), keys, operationTimeout, (ScheduledExecutorService) resources.eventExecutorGroup());
        this.waitQueue = new RedisWaitQueue(node, keys);
        this.permitWaiting = Waiting.polling(
                (lockName, wake) -> notifications.subscribeChannel(RedisPermits.channel(keys, lockName), wake));
        this.broadcastWaiting = Waiting.polling(notifications);
        this.handOverWaiting = Waiting.queue(new RedisLine(this::tryAcquire, this::join));
    }

    /**
     * Permits and shared locks poll, woken by their release channel; a fair client's exclusive
     * waiters also stand in the lock's line in Redis, so that a release hands the lock straight to
     * the head ({@link RedisWaitQueue}), and keep the broadcast channel as a fallback.
     */
    @Override
    public Waiting waiting(LockKind kind) {
        if (kind == LockKind.PERMIT) {
            return permitWaiting;
        }
        return fair && kind.mode() == LockMode.EXCLUSIVE ? handOverWaiting : broadcastWaiting;
    }

    /** A refused exclusive request joins the line: queued in Redis by its next attempt. */
    private WaitQueue.Membership join(LockRequest request, Runnable wake) {
        RedisWaitQueue.Waiter waiter = waitQueue.enqueue(request, wake);
        if (waiter == null) {
            Subscription broadcast = notifications.subscribe(request.name(), wake);
            return granted -> broadcast.close();
        }
        // Queued by the next attempt, which must not wait for a subscription first.
        Subscription broadcast = notifications.subscribeWithoutWaiting(request.name(), wake);
        return granted -> {
            broadcast.close();
            if (waitQueue.leave(waiter) && !granted) {
                // Leaves the queue, and frees (hands on) a lock handed to it that it never took.
                abandonAsync(request.name(), request.ownerId(), request.mode(), waiter.member);
            }
        };
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * How long a waiter's queue entry outlives its latest attempt: three of the waiters' longest poll
     * pauses, at least a second, never more than the lease time. A live waiter attempts at least once
     * per pause and keeps its entry; the entry of a waiter whose process died is gone that long after
     * its last attempt (well under the default 30 s lease), so only a release within that window can
     * hand the lock to it, and that lock then frees itself after the dead waiter's lease.
     */
    long queueEntryTtlMillis(Duration leaseTime) {
        long ttl = Math.max(1000, 3 * pollMaxDelay.toMillis());
        return Math.max(1, Math.min(ttl, leaseTime.toMillis()));
    }

    /** Yes: see {@link RedisPermits}. */
    @Override
    public boolean supportsPermits() {
        return true;
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        if (request.kind() == LockKind.PERMIT) {
            return permits.tryAcquire(request);
        }
        RedisWaitQueue.Waiter waiter =
                request.mode() == LockMode.EXCLUSIVE ? waitQueue.waiter(request.ownerId()) : null;
        // With waitReplicas, the releasing client wrote the hand-over; it counts once a write of ours
        // after it was acknowledged (see RedisReplicaWait), so the server is asked below.
        Optional<Grant> handedOver = waiter == null ? Optional.empty() : waiter.takeHandedOver(replicaWait.enabled());
        if (handedOver.isPresent()) {
            return handedOver;
        }
        // The expiry reported to the caller is measured from before the request was sent, so it is
        // never later than the key's real expiry on the server.
        Instant sent = Instant.now();
        long sentNanos = System.nanoTime();
        // The script extends a grant this owner holds, or grants afresh, so it may be written twice.
        long token = replicaWait.confirmedGrant(
                keys.keys(request.name(), request.mode())[0],
                via -> acquireOnce(request, waiter, via),
                () -> releaseAsync(
                        request.name(), request.ownerId(), request.mode(), waiter == null ? "" : waiter.member),
                "Baton lock '" + request.name() + "'",
                name,
                "grant",
                request.leaseTime());
        if (token <= 0) {
            if (waiter != null) {
                waiter.lastRefusedSentNanos = sentNanos;
            }
            return Optional.empty();
        }
        if (waiter != null) {
            waiter.granted = true;
        }
        return Optional.of(Grant.of(request, token, sent.plus(request.leaseTime())));
    }

    /** Runs the acquire script once on {@code via} (see {@link RedisReplicaWait#beforeWrite}); the fencing token if granted, else 0. */
    private long acquireOnce(LockRequest request, RedisWaitQueue.Waiter waiter, RedisConnector.Commands via) {
        String owner = request.ownerId();
        String mode = RedisScripts.modeArg(request.mode());
        String lease = Long.toString(Math.max(1, request.leaseTime().toMillis()));
        String fenceTtl = Long.toString(RedisScripts.fenceTtlMillis(request.leaseTime()));
        String[] lockKeys = keys.keys(request.name(), request.mode());
        String holder = RedisHolders.clean(request.holder());
        String[] args = waiter == null
                ? new String[] {owner, mode, lease, fenceTtl, holder}
                : new String[] {
                    owner,
                    mode,
                    lease,
                    fenceTtl,
                    holder,
                    waiter.member,
                    Long.toString(queueEntryTtlMillis(request.leaseTime()))
                };
        Long token = RedisFailures.await(
                node.<Long>eval(via, RedisScripts.ACQUIRE, ScriptOutputType.INTEGER, lockKeys, args),
                timeoutNanos,
                request.name(),
                name,
                "acquire");
        return token == null ? 0 : token;
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        return renewAll(List.of(grant), leaseTime).get(0);
    }

    @Override
    public int renewalBatchSize() {
        return RedisRenewals.BATCH;
    }

    /** One script call for all {@code grants} (on a Cluster, one per hash slot, sent together). */
    @Override
    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        return RedisRenewals.renewConfirmed(
                node,
                keys,
                replicaWait,
                grants,
                leaseTime.toMillis(),
                RedisScripts.fenceTtlMillis(leaseTime),
                name,
                timeoutNanos);
    }

    CompletableFuture<Long> releaseAsync(String lockName, String ownerId, LockMode mode, String queueMember) {
        String[] lockKeys = keys.keys(lockName, mode);
        String channel = keys.channel(lockName);
        String[] args = queueMember.isEmpty()
                ? new String[] {ownerId, RedisScripts.modeArg(mode), channel}
                : new String[] {ownerId, RedisScripts.modeArg(mode), channel, queueMember};
        return node.eval(RedisScripts.RELEASE, ScriptOutputType.INTEGER, lockKeys, args);
    }

    @Override
    public boolean release(Grant grant) {
        if (RedisPermits.isPermit(grant)) {
            return permits.release(grant);
        }
        Long released = RedisFailures.await(
                releaseAsync(grant.name(), grant.ownerId(), grant.mode(), ""),
                timeoutNanos,
                grant.name(),
                name,
                "release");
        return released != null && released == 1;
    }

    /**
     * Sends the release without waiting for it: Lettuce keeps commands in order on the connection,
     * so it runs after the attempt it cleans up, and a server that cannot be reached does not delay
     * the caller's error by another operation timeout.
     */
    @Override
    public void abandon(LockRequest request) {
        if (request.kind() == LockKind.PERMIT) {
            permits.abandon(request);
            return;
        }
        RedisWaitQueue.Waiter waiter =
                request.mode() == LockMode.EXCLUSIVE ? waitQueue.waiter(request.ownerId()) : null;
        abandonAsync(request.name(), request.ownerId(), request.mode(), waiter == null ? "" : waiter.member);
    }

    private void abandonAsync(String lockName, String ownerId, LockMode mode, String queueMember) {
        releaseAsync(lockName, ownerId, mode, queueMember).whenComplete((released, failure) -> {
            if (failure != null) {
                log.debug(
                        "Baton lock '{}' on {}: clean-up after a failed or abandoned attempt did not reach"
                                + " Redis; the key, if any, expires after its lease time: {}",
                        lockName,
                        name,
                        failure.toString());
            }
        });
    }

    /** The hand-over queue's key suffix when this backend counts waiters in it (fair), else null. */
    private String waiting() {
        return fair ? "queue" : null;
    }

    /** The lock of this name, or, when no lock is held, its semaphore (two scripts, sent together). */
    @Override
    public Optional<LockInfo> inspect(String lockName) {
        List<LockInfo> held = RedisFailures.await(
                RedisInspection.both(node, keys, lockName, waiting(), true), timeoutNanos, lockName, name, "inspect");
        return held.stream().findFirst();
    }

    /**
     * Scans the key space in batches ({@code SCAN ... MATCH ... COUNT}; on a Cluster every master),
     * see {@link RedisLockScan}: its cost grows with the number of keys in the database. Exclusive
     * waiters are counted from the hand-over queue (not with {@code fair=false}, which has none);
     * readers waiting for a writer and semaphore waiters poll and are not counted.
     */
    @Override
    public List<LockInfo> list(String prefix) {
        return RedisLockScan.list(node, keys, prefix, waiting(), true, timeoutNanos, name);
    }

    @Override
    public String listingMethod() {
        return RedisLockScan.method(keys, node.isCluster() ? "on every master" : "");
    }

    /**
     * Breaks by owner id in one script per holder ({@link RedisInspection#FORCE_RELEASE}, or a
     * permit's release), which hands a lock to its first queued waiter or publishes, as a release
     * does; the next grant draws its token from the same counter, above the broken one. The broken
     * holder's next renewal finds its owner id gone and reports the lease lost.
     */
    @Override
    public List<LockInfo> forceRelease(String lockName, String ownerId) {
        return RedisInspection.forceRelease(node, keys, lockName, ownerId, waiting(), timeoutNanos, name);
    }

    @Override
    public void close() {
        waitQueue.close();
        node.close();
        RedisResources.shutdown(resources);
    }

    @Override
    public String toString() {
        return "RedisLockBackend[" + name + "]";
    }
}
