package dev.baton.redis;

import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;

/**
 * Renewal of many grants of one client in one script call ({@link RedisScripts#RENEW_ALL}): up to
 * {@link #BATCH} grants in one round trip, as Redisson's watchdog renews up to 100 locks at once.
 * On a Redis Cluster the grants are sent in one call per hash slot (a script may only touch one
 * slot's keys), all at once on Lettuce's cluster connection (with {@code waitReplicas}, on the node
 * connection to each slot's master, followed by one {@code WAIT} per master).
 */
final class RedisRenewals {
    /** Grants per call: a script of a few hundred keys runs in well under a millisecond. */
    static final int BATCH = 100;

    private RedisRenewals() {}

    /** One RENEW_ALL call for {@code grants} (all in one slot on a Cluster). */
    static CompletableFuture<List<Object>> send(
            RedisNode node,
            RedisConnector.Commands via,
            RedisKeys keys,
            List<Grant> grants,
            long leaseMillis,
            long fenceTtlMillis) {
        String[] keyArgs = new String[grants.size() * 4];
        String[] args = new String[2 + grants.size() * 2];
        args[0] = Long.toString(Math.max(1, leaseMillis));
        args[1] = Long.toString(fenceTtlMillis);
        for (int i = 0; i < grants.size(); i++) {
            Grant grant = grants.get(i);
            boolean permit = RedisPermits.isPermit(grant);
            String[] grantKeys = permit ? RedisPermits.keys(keys, grant.name()) : keys.keys(grant.name(), grant.mode());
            System.arraycopy(grantKeys, 0, keyArgs, i * 4, 3);
            // An exclusive grant's description is in its lock's value: its fourth key goes unused.
            keyArgs[i * 4 + 3] = grantKeys.length > 3 ? grantKeys[3] : keys.descriptions(grant.name());
            args[2 + i * 2] = grant.ownerId();
            args[3 + i * 2] = permit ? "P" : RedisScripts.modeArg(grant.mode());
        }
        return node.eval(via, RedisScripts.RENEW_ALL, ScriptOutputType.MULTI, keyArgs, args);
    }

    /**
     * Sends {@code grants} in as few calls as the deployment allows: one, or one per slot on a
     * Cluster. The future completes with one reply per grant, in order: empty when the server no
     * longer has it, else the server's time in ms when it extended it; it fails when any call did.
     */
    static CompletableFuture<List<Optional<Long>>> renew(
            RedisNode node, RedisKeys keys, List<Grant> grants, long leaseMillis, long fenceTtlMillis) {
        return renew(node, keys, grants, leaseMillis, fenceTtlMillis, key -> null);
    }

    /**
     * As {@link #renew(RedisNode, RedisKeys, List, long, long)}, each call sent on the connection
     * {@code route} names for the first key of its grants, right before it is sent ({@code null}:
     * the shared command connection); {@link RedisReplicaWait#beforeWrite} as {@code route} marks
     * each call for its {@code WAIT}.
     */
    static CompletableFuture<List<Optional<Long>>> renew(
            RedisNode node,
            RedisKeys keys,
            List<Grant> grants,
            long leaseMillis,
            long fenceTtlMillis,
            Function<String, RedisConnector.Commands> route) {
        Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
        for (int i = 0; i < grants.size(); i++) {
            Grant grant = grants.get(i);
            // A permit's keys carry the same hash tag as the lock's of that name: the same slot.
            int slot = node.isCluster() ? SlotHash.getSlot(keys.keys(grant.name(), grant.mode())[0]) : 0;
            bySlot.computeIfAbsent(slot, s -> new ArrayList<>()).add(i);
        }
        // The server time of each grant's extension, or -1 where the server no longer has it.
        AtomicLongArray answers = new AtomicLongArray(grants.size());
        List<CompletableFuture<?>> calls = new ArrayList<>(bySlot.size());
        for (List<Integer> indexes : bySlot.values()) {
            List<Grant> part = new ArrayList<>(indexes.size());
            for (int index : indexes) {
                part.add(grants.get(index));
            }
            Grant first = part.get(0);
            RedisConnector.Commands via = route.apply(keys.keys(first.name(), first.mode())[0]);
            calls.add(send(node, via, keys, part, leaseMillis, fenceTtlMillis).thenAccept(reply -> {
                long now = RedisScripts.number(reply.get(0));
                for (int i = 0; i < indexes.size(); i++) {
                    answers.set(indexes.get(i), RedisScripts.number(reply.get(i + 1)) == 1 ? now : -1);
                }
            }));
        }
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).thenApply(done -> {
            List<Optional<Long>> out = new ArrayList<>(grants.size());
            for (int i = 0; i < grants.size(); i++) {
                long now = answers.get(i);
                out.add(now < 0 ? Optional.empty() : Optional.of(now));
            }
            return out;
        });
    }

    /**
     * Renews {@code grants} ({@link #renew}) and, when {@code wait} is on, makes the renewal count:
     * each script call is marked ({@link RedisReplicaWait#beforeWrite}; on a Cluster it then goes to
     * its slot's master) and followed by {@code WAIT} on its connection.
     *
     * @return per grant, the renewed grant or empty when the server no longer has it
     * @throws LockUnavailableException if a call failed or a renewal was not acknowledged
     */
    static List<Optional<Grant>> renewConfirmed(
            RedisNode node,
            RedisKeys keys,
            RedisReplicaWait wait,
            List<Grant> grants,
            long leaseTimeMillis,
            long fenceTtlMillis,
            String backend,
            long timeoutNanos) {
        long leaseMillis = Math.max(1, leaseTimeMillis);
        String locks = grants.get(0).name() + (grants.size() > 1 ? "' and " + (grants.size() - 1) + " more '" : "");
        // One mark, and so one WAIT, per connection: per master on a Cluster, however many slots.
        Map<Object, RedisReplicaWait.Mark> byConnection = new LinkedHashMap<>();
        List<Optional<Long>> answers = RedisFailures.await(
                renew(node, keys, grants, leaseMillis, fenceTtlMillis, key -> wait.beforeWrite(
                                key, "Baton lock '" + locks + "'", backend, "renew", byConnection)
                        .via()),
                timeoutNanos,
                locks,
                backend,
                "renew");
        if (wait.enabled() && answers.stream().anyMatch(Optional::isPresent)) {
            Optional<String> unconfirmed = Optional.empty();
            for (RedisReplicaWait.Mark mark : byConnection.values()) {
                unconfirmed = wait.unconfirmed(mark, "the renewal");
                if (unconfirmed.isPresent()) {
                    break;
                }
            }
            if (unconfirmed.isPresent()) {
                // The extension stays on the master, but locally the lease keeps its previous
                // expiry: the core retries the renewal while the lease is valid.
                throw new LockUnavailableException("Baton lock '" + locks + "' on " + backend
                        + ": renew failed: the renewal does not count: " + unconfirmed.get()
                        + "; the lease keeps its previous expiry and renewal is retried while it is valid");
            }
        }
        List<Optional<Grant>> renewed = new ArrayList<>(grants.size());
        for (int i = 0; i < grants.size(); i++) {
            renewed.add(renewed(grants.get(i), answers.get(i), leaseMillis));
        }
        return renewed;
    }

    /** The renewed grant, expiring {@code leaseMillis} after the server time of the reply. */
    static Optional<Grant> renewed(Grant grant, Optional<Long> serverNow, long leaseMillis) {
        return serverNow.map(now -> grant.withExpiresAt(Instant.ofEpochMilli(now + leaseMillis)));
    }
}
