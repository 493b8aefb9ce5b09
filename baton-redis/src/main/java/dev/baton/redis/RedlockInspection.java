package dev.baton.redis;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * What Redlock's masters hold, as a majority says it ({@link RedlockBackend#inspect}, {@link
 * RedlockBackend#list}), and the operator's forced release on every master.
 *
 * <p>A holder counts only where a majority of the masters has its grant, as a grant does: each
 * master is read on its own ({@link RedisInspection}, {@link RedisLockScan}), and a holder is
 * reported with the highest token and the earliest expiry those masters give. A leftover on a
 * minority (an attempt that did not win, a master that missed a release) is left out. Waiters are
 * counted from the fair tickets: the number that a majority of masters reports at least.
 *
 * <p>A forced release runs one script per holder on every master ({@link
 * RedisInspection#FORCE_RELEASE}): it first raises the master's fencing counter to the highest token
 * any master gave a broken holder, then releases as a release does (publishing, so waiters wake).
 * Once a majority ran it, every later majority shares a master with it, whose counter is above every
 * broken token: the next grant's token, the maximum of its majority's, is higher. It fails unless a
 * majority answered, and a second call finishes what the first left.
 */
final class RedlockInspection {
    private final List<RedisNode> nodes;
    private final int quorum;
    private final RedisKeys keys;
    private final String waiting;
    private final long timeoutNanos;
    private final String backend;

    /** @param waiting the ticket expiries' key suffix when waiters queue by ticket (fair), else null */
    RedlockInspection(
            List<RedisNode> nodes, int quorum, RedisKeys keys, String waiting, long timeoutNanos, String backend) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.keys = keys;
        this.waiting = waiting;
        this.timeoutNanos = timeoutNanos;
        this.backend = backend;
    }

    Optional<LockInfo> inspect(String name) {
        List<List<LockInfo>> perMaster =
                onMasters(name, "inspect", node -> RedisInspection.lock(node, keys, name, waiting)
                        .thenApply(info -> info.map(List::of).orElse(List.of())));
        return merge(perMaster).stream().findFirst();
    }

    /** Scans master by master (a scan is many round trips); a master that fails is left out. */
    List<LockInfo> list(String prefix) {
        List<List<LockInfo>> perMaster = new ArrayList<>(nodes.size());
        dev.baton.LockUnavailableException first = null;
        for (RedisNode node : nodes) {
            try {
                perMaster.add(RedisLockScan.list(node, keys, prefix, waiting, false, timeoutNanos, backend));
            } catch (dev.baton.LockUnavailableException e) {
                first = first == null ? e : first;
            }
        }
        if (perMaster.size() < quorum) {
            throw first;
        }
        return merge(perMaster);
    }

    List<LockInfo> forceRelease(String name, String ownerId) {
        List<List<LockInfo>> perMaster =
                onMasters(name, "force release (inspect)", node -> RedisInspection.lock(node, keys, name, waiting)
                        .thenApply(info -> info.map(List::of).orElse(List.of())));
        // Every matching holder any master has, and the highest token any master gave one of them.
        Map<String, LockKind> owners = new LinkedHashMap<>();
        long raiseTo = 0;
        for (List<LockInfo> infos : perMaster) {
            for (LockInfo info : infos == null ? List.<LockInfo>of() : infos) {
                for (Holder holder : info.holders()) {
                    if (ownerId == null || holder.ownerId().equals(ownerId)) {
                        owners.putIfAbsent(holder.ownerId(), info.kind());
                        raiseTo = Math.max(raiseTo, holder.fencingToken());
                    }
                }
            }
        }
        if (owners.isEmpty()) {
            return List.of();
        }
        long raise = raiseTo;
        List<List<Long>> released = onMasters(name, "force release", node -> {
            List<CompletableFuture<Long>> calls = new ArrayList<>();
            owners.forEach(
                    (owner, kind) -> calls.add(RedisInspection.breakHolder(node, keys, name, kind, owner, raise)));
            return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                    .thenApply(
                            done -> calls.stream().map(CompletableFuture::join).toList());
        });
        List<String> order = new ArrayList<>(owners.keySet());
        List<LockInfo> broken = new ArrayList<>();
        for (LockInfo info : merge(perMaster)) {
            List<Holder> hit = info.holders().stream()
                    .filter(holder -> owners.containsKey(holder.ownerId())
                            && released.stream()
                                    .anyMatch(replies ->
                                            replies != null && replies.get(order.indexOf(holder.ownerId())) == 1))
                    .toList();
            if (!hit.isEmpty()) {
                broken.add(LockInfo.of(name, info.kind(), hit)
                        .withPermits(info.permits())
                        .withWaiters(info.waiters()));
            }
        }
        return broken;
    }

    /**
     * Runs {@code call} on every master at once and waits for each within the operation timeout: per
     * master, its answer or null when it failed.
     *
     * @throws dev.baton.LockUnavailableException if fewer than a majority answered
     */
    private <T> List<T> onMasters(String subject, String action, Function<RedisNode, CompletableFuture<T>> call) {
        List<CompletableFuture<T>> futures = new ArrayList<>(nodes.size());
        for (RedisNode node : nodes) {
            CompletableFuture<T> future;
            try {
                future = call.apply(node);
            } catch (RuntimeException e) {
                future = CompletableFuture.failedFuture(e);
            }
            futures.add(future);
        }
        long deadline = System.nanoTime() + timeoutNanos;
        List<T> answers = new ArrayList<>(nodes.size());
        Throwable first = null;
        int answered = 0;
        for (CompletableFuture<T> future : futures) {
            try {
                answers.add(future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                answered++;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw RedisFailures.unavailable(subject, backend, action, e);
            } catch (Exception e) {
                answers.add(null);
                first = first == null ? RedisNode.unwrap(e) : first;
            }
        }
        if (answered < quorum) {
            throw RedisFailures.unavailable(
                    subject,
                    backend,
                    action,
                    new IllegalStateException(
                            "only " + answered + " of " + nodes.size() + " masters answered, " + quorum
                                    + " needed (first failure: " + first + ")",
                            first));
        }
        return answers;
    }

    /** The locks a majority of masters holds: per name and kind, the holders a majority has. */
    List<LockInfo> merge(List<List<LockInfo>> perMaster) {
        Map<String, List<LockInfo>> byLock = new LinkedHashMap<>();
        for (List<LockInfo> infos : perMaster) {
            for (LockInfo info : infos == null ? List.<LockInfo>of() : infos) {
                byLock.computeIfAbsent(info.kind() + " " + info.name(), k -> new ArrayList<>())
                        .add(info);
            }
        }
        List<LockInfo> merged = new ArrayList<>();
        for (List<LockInfo> seen : byLock.values()) {
            Map<String, List<Holder>> byOwner = new LinkedHashMap<>();
            for (LockInfo info : seen) {
                for (Holder holder : info.holders()) {
                    byOwner.computeIfAbsent(holder.ownerId(), o -> new ArrayList<>())
                            .add(holder);
                }
            }
            List<Holder> holders = new ArrayList<>();
            for (List<Holder> copies : byOwner.values()) {
                if (copies.size() >= quorum) {
                    holders.add(Holder.of(
                            copies.get(0).ownerId(),
                            copies.stream()
                                    .map(Holder::description)
                                    .filter(d -> !d.isEmpty())
                                    .findFirst()
                                    .orElse(""),
                            copies.stream()
                                    .mapToLong(Holder::fencingToken)
                                    .max()
                                    .orElseThrow(),
                            copies.stream()
                                    .map(Holder::expiresAt)
                                    .min(Comparator.naturalOrder())
                                    .orElse(Instant.EPOCH)));
                }
            }
            if (!holders.isEmpty()) {
                LockInfo first = seen.get(0);
                merged.add(LockInfo.of(first.name(), first.kind(), holders)
                        .withPermits(first.permits())
                        .withWaiters(waiters(seen)));
            }
        }
        merged.sort(RedisLockScan.ORDER);
        return merged;
    }

    /** The count a majority of the masters that hold the lock reports at least; empty if none counts. */
    private OptionalInt waiters(List<LockInfo> seen) {
        List<Integer> counts = seen.stream()
                .map(LockInfo::waiters)
                .filter(OptionalInt::isPresent)
                .map(OptionalInt::getAsInt)
                .sorted(Comparator.reverseOrder())
                .toList();
        if (counts.isEmpty()) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(counts.get(Math.min(quorum, counts.size()) - 1));
    }
}
