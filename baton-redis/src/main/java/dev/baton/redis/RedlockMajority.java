package dev.baton.redis;

import dev.baton.LockMode;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redlock's rule over the masters of a {@link RedlockBackend}: a round sends one call to every
 * master at once, each bounded by a per-node timeout far below the lease, and a grant counts once a
 * majority ({@link #quorum()}) made it within its validity, {@code lease - elapsed - drift}. Here is
 * the acquisition by that rule (the acquire round, then the round that raises every granting
 * master's fencing counter to the majority's maximum) and the release on every master; the backend
 * renews by the same rule.
 */
final class RedlockMajority {
    private static final Logger log = LoggerFactory.getLogger(RedlockMajority.class);

    private final String name;
    private final RedisKeys keys;
    private final List<RedisNode> nodes;
    private final int quorum;
    private final Duration nodeTimeout;
    private final double driftFactor;
    private final Duration driftFixed;
    private final long operationTimeoutNanos;
    private final RedlockTickets tickets;

    /**
     * @param name the backend's name, for messages
     * @param operationTimeoutNanos how long an acquisition may retry when too few masters answer
     */
    RedlockMajority(
            String name,
            RedisKeys keys,
            List<RedisNode> nodes,
            Duration nodeTimeout,
            double driftFactor,
            Duration driftFixed,
            long operationTimeoutNanos,
            RedlockTickets tickets) {
        this.name = name;
        this.keys = keys;
        this.nodes = nodes;
        this.quorum = nodes.size() / 2 + 1;
        this.nodeTimeout = nodeTimeout;
        this.driftFactor = driftFactor;
        this.driftFixed = driftFixed;
        this.operationTimeoutNanos = operationTimeoutNanos;
        this.tickets = tickets;
    }

    /** Majority of the masters. */
    int quorum() {
        return quorum;
    }

    /** The allowance for clock drift between client and servers for a lease of this length. */
    long driftMillis(Duration leaseTime) {
        return (long) Math.ceil(leaseTime.toMillis() * driftFactor) + driftFixed.toMillis();
    }

    /** The per-node timeout for a lease: configured, but never more than a tenth of the lease. */
    long nodeTimeoutMillis(Duration leaseTime) {
        return Math.max(1, Math.min(nodeTimeout.toMillis(), leaseTime.toMillis() / 10));
    }

    /** Sends {@code call} to every master at once ({@link RedlockRound#run}). */
    RedlockRound round(long timeoutMillis, Function<RedisNode, CompletableFuture<List<Object>>> call) {
        return RedlockRound.run(nodes, timeoutMillis, call);
    }

    static List<Object> single(Object value) {
        return value == null ? null : List.of(value);
    }

    /**
     * One Redlock attempt; when too few masters answer (a master that just came back may still be
     * reconnecting), tries again after a short random pause until the operation timeout is spent.
     */
    Optional<Grant> tryAcquire(LockRequest request) {
        long deadline = System.nanoTime() + operationTimeoutNanos - TimeUnit.SECONDS.toNanos(1);
        while (true) {
            try {
                return attempt(request);
            } catch (LockUnavailableException e) {
                long pause = TimeUnit.MILLISECONDS.toNanos(
                        20 + ThreadLocalRandom.current().nextInt(30));
                if (Thread.currentThread().isInterrupted()
                        || System.nanoTime()
                                        + pause
                                        + TimeUnit.MILLISECONDS.toNanos(nodeTimeoutMillis(request.leaseTime()))
                                > deadline) {
                    throw e;
                }
                LockSupport.parkNanos(pause);
            }
        }
    }

    private Optional<Grant> attempt(LockRequest request) {
        Duration lease = request.leaseTime();
        long drift = driftMillis(lease);
        long timeout = nodeTimeoutMillis(lease);
        String[] lockKeys = keys.keys(request.name(), request.mode());
        String mode = RedisScripts.modeArg(request.mode());
        String fenceTtl = Long.toString(RedisScripts.fenceTtlMillis(lease));
        String leaseOnServer = Long.toString(lease.toMillis() + drift);
        String holder = RedisHolders.clean(request.holder());
        boolean queues = tickets.queues(request);
        RedlockTickets.Ticket ticket = queues ? tickets.ticket(request) : null;
        if (queues) {
            lockKeys = keys.redlockKeys(request.name());
        }
        String[] scriptKeys = lockKeys;
        long start = System.nanoTime();
        RedlockRound acquired = round(timeout, node -> (queues
                        ? node.<Long>eval(
                                RedisScripts.REDLOCK_ACQUIRE,
                                ScriptOutputType.INTEGER,
                                scriptKeys,
                                request.ownerId(),
                                leaseOnServer,
                                fenceTtl,
                                ticket == null ? "" : ticket.score,
                                Long.toString(tickets.entryTtlMillis(lease)),
                                holder)
                        : node.<Long>eval(
                                RedisScripts.ACQUIRE,
                                ScriptOutputType.INTEGER,
                                scriptKeys,
                                request.ownerId(),
                                mode,
                                leaseOnServer,
                                fenceTtl,
                                holder))
                .thenApply(RedlockMajority::single));
        List<RedisNode> granted = new ArrayList<>();
        long token = Long.MIN_VALUE;
        int refused = 0;
        for (int i = 0; i < nodes.size(); i++) {
            List<Object> reply = acquired.replies().get(i);
            if (reply == null) {
                continue;
            }
            long nodeToken = RedisScripts.number(reply.get(0));
            if (nodeToken > 0) {
                granted.add(nodes.get(i));
                token = Math.max(token, nodeToken);
            } else {
                refused++;
            }
        }
        if (granted.size() >= quorum) {
            long maxToken = token;
            RedlockRound raised = round(
                    timeout,
                    node -> granted.contains(node)
                            ? node.<Long>eval(
                                            RedisScripts.RAISE,
                                            ScriptOutputType.INTEGER,
                                            scriptKeys,
                                            request.ownerId(),
                                            mode,
                                            Long.toString(maxToken),
                                            fenceTtl)
                                    .thenApply(RedlockMajority::single)
                            : CompletableFuture.completedFuture(List.of(0L)));
            int held = 0;
            for (List<Object> reply : raised.replies()) {
                if (reply != null && RedisScripts.number(reply.get(0)) == 1) {
                    held++;
                }
            }
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            long validity = lease.toMillis() - elapsedMillis - drift;
            if (held >= quorum && validity > 0) {
                if (ticket != null) {
                    ticket.confirmed = true;
                }
                return Optional.of(Grant.of(request, maxToken, Instant.now().plusMillis(validity)));
            }
            log.debug(
                    "Baton lock '{}' on {}: majority lost while granting ({} of {} still held, validity {} ms);"
                            + " releasing and retrying",
                    request.name(),
                    name,
                    held,
                    nodes.size(),
                    validity);
        }
        releaseEverywhere(request.name(), request.ownerId(), request.mode(), timeout);
        if (granted.size() + refused >= quorum) {
            return Optional.empty(); // another owner holds it, or a split: retry after a random pause
        }
        throw RedisFailures.unavailable(
                request.name(),
                name,
                "acquire",
                new IllegalStateException(
                        "only " + acquired.answered() + " of " + nodes.size() + " masters answered within " + timeout
                                + " ms, Redlock needs " + quorum
                                + "; nothing is left behind on the masters that answered;"
                                + " bring masters back or check the network (first failure: " + acquired.firstFailure()
                                + ")",
                        acquired.firstFailure()));
    }

    /** Releases on every master at once; the round says which masters had it. */
    RedlockRound releaseEverywhere(String lockName, String ownerId, LockMode mode, long timeoutMillis) {
        String[] lockKeys = keys.keys(lockName, mode);
        return round(timeoutMillis, node -> node.<Long>eval(
                        RedisScripts.RELEASE,
                        ScriptOutputType.INTEGER,
                        lockKeys,
                        ownerId,
                        RedisScripts.modeArg(mode),
                        keys.channel(lockName))
                .thenApply(RedlockMajority::single));
    }
}
