package dev.baton.redis;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import io.lettuce.core.ScriptOutputType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

/**
 * What one Redis deployment (a server, a Sentinel's master, a Cluster, or one Redlock master) holds
 * for a name, read by one script per form (lock, semaphore) so that the answer is consistent, and
 * the operator's forced release of one holder. Holder descriptions are read where {@link
 * RedisHolders} says they are written; a grant written without one (an older client) reads as an
 * empty description, and a shared hold or permit without a recorded token reads with the name's
 * latest token, never lower than its own.
 */
final class RedisInspection {
    private RedisInspection() {}

    private static final String NOW = "local t = redis.call('TIME')\n"
            + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n";

    /**
     * Appends the live members of the sorted set {@code zset} (scored by expiry) as {@code owner,
     * expiry ms, token, description} to {@code out}, tokens and descriptions from {@code hash}.
     */
    private static final String HOLDERS = "local function holders(out, zset, hash, fence, now)\n"
            + "  local live = redis.call('ZRANGEBYSCORE', zset, '(' .. now, '+inf', 'WITHSCORES')\n"
            + "  for i = 1, #live, 2 do\n"
            + "    local token, holder = fence, ''\n"
            + "    local entry = hash and redis.call('HGET', hash, live[i])\n"
            + "    if entry then\n"
            + "      local tk, h = string.match(entry, '^(%d+) (.*)$')\n"
            + "      if tk then token, holder = tk, h end\n"
            + "    end\n"
            + "    out[#out + 1] = live[i]\n"
            + "    out[#out + 1] = math.floor(tonumber(live[i + 1]))\n"
            + "    out[#out + 1] = token\n"
            + "    out[#out + 1] = holder\n"
            + "  end\n"
            + "end\n";

    /**
     * A lock. KEYS: {@link RedisKeys#inspectKeys}. Returns {} when free, else {@code {mode (X|S),
     * waiters (-1 when not counted), then owner, expiry ms, token, description per holder}}: the
     * exclusive holder, or the readers that have not expired. Waiters are the live entries of the
     * fifth key (hand-over queue or Redlock ticket expiries).
     */
    static final RedisScripts.Script LOCK = RedisScripts.Script.of(
            "inspect",
            NOW
                    + RedisScripts.OWNER_OF
                    + HOLDERS
                    + "local held = redis.call('GET', KEYS[1])\n"
                    + "if not held then return {} end\n"
                    + "local waiters = -1\n"
                    + "if KEYS[5] then waiters = redis.call('ZCOUNT', KEYS[5], '(' .. now, '+inf') end\n"
                    + "local fence = redis.call('GET', KEYS[2]) or '0'\n"
                    + "if held ~= 'S' then\n"
                    + "  local holder = string.match(held, '^(.*) [^ ]*$') or ''\n"
                    + "  return {'X', waiters, ownerOf(held), now + redis.call('PTTL', KEYS[1]), fence, holder}\n"
                    + "end\n"
                    + "local out = {'S', waiters}\n"
                    + "holders(out, KEYS[3], KEYS[4], fence, now)\n"
                    + "if #out == 2 then return {} end\n"
                    + "return out\n");

    /**
     * A semaphore. KEYS: {@link RedisPermits#keys}. Returns {} when no permit is held, else {@code
     * {permits, then owner, expiry ms, token, description per holder}}.
     */
    static final RedisScripts.Script PERMITS = RedisScripts.Script.of(
            "inspect-permits",
            NOW
                    + HOLDERS
                    + "local out = {0}\n"
                    + "holders(out, KEYS[1], KEYS[4], redis.call('GET', KEYS[2]) or '0', now)\n"
                    + "if #out == 1 then return {} end\n"
                    + "local stored = redis.call('GET', KEYS[3])\n"
                    + "if stored then out[1] = tonumber((string.gsub(stored, '%+$', ''))) or 0 end\n"
                    + "return out\n");

    /**
     * An operator's forced release of one lock holder: raises the fencing counter to at least ARGV[5]
     * (keeping its time to live, at least ARGV[6] ms), then releases exactly as {@link
     * RedisScripts#RELEASE} does (hand-over to the first live waiter, or {@code PUBLISH}), in one
     * script, so no grant can slip in between with a lower token. KEYS and ARGV[1..4] as {@link
     * RedisScripts#RELEASE}.
     */
    static final RedisScripts.Script FORCE_RELEASE = RedisScripts.Script.of(
            "force-release",
            "if ARGV[5] and ARGV[5] ~= '' then\n"
                    + "  local current = tonumber(redis.call('GET', KEYS[2]) or '0') or 0\n"
                    + "  if current < tonumber(ARGV[5]) then\n"
                    + "    local ttl = math.max(tonumber(ARGV[6]), redis.call('PTTL', KEYS[2]))\n"
                    + "    redis.call('SET', KEYS[2], ARGV[5], 'PX', ttl)\n"
                    + "  end\n"
                    + "end\n"
                    + RedisScripts.RELEASE.source());

    /** The lock's keys for {@link #LOCK}, counting waiters in {@code waiting} when not null. */
    static CompletableFuture<Optional<LockInfo>> lock(RedisNode node, RedisKeys keys, String name, String waiting) {
        return node.<List<Object>>eval(LOCK, ScriptOutputType.MULTI, keys.inspectKeys(name, waiting))
                .thenApply(reply -> lockInfo(name, reply));
    }

    static CompletableFuture<Optional<LockInfo>> permits(RedisNode node, RedisKeys keys, String name) {
        return node.<List<Object>>eval(PERMITS, ScriptOutputType.MULTI, RedisPermits.keys(keys, name))
                .thenApply(reply -> permitInfo(name, reply));
    }

    /** Both forms of {@code name}: its lock (and read/write lock) and, if asked, its semaphore. */
    static CompletableFuture<List<LockInfo>> both(
            RedisNode node, RedisKeys keys, String name, String waiting, boolean semaphores) {
        CompletableFuture<Optional<LockInfo>> lock = lock(node, keys, name, waiting);
        CompletableFuture<Optional<LockInfo>> permits =
                semaphores ? permits(node, keys, name) : CompletableFuture.completedFuture(Optional.empty());
        return lock.thenCombine(permits, (l, p) -> {
            List<LockInfo> out = new ArrayList<>(2);
            l.ifPresent(out::add);
            p.ifPresent(out::add);
            return out;
        });
    }

    static Optional<LockInfo> lockInfo(String name, List<Object> reply) {
        if (reply == null || reply.size() < 6) {
            return Optional.empty();
        }
        LockKind kind = "X".equals(String.valueOf(reply.get(0))) ? LockKind.MUTEX : LockKind.READ;
        long waiters = number(reply.get(1));
        return Optional.of(LockInfo.of(name, kind, holders(reply, 2))
                .withWaiters(waiters < 0 ? OptionalInt.empty() : OptionalInt.of((int) waiters)));
    }

    static Optional<LockInfo> permitInfo(String name, List<Object> reply) {
        if (reply == null || reply.size() < 5) {
            return Optional.empty();
        }
        List<Holder> holders = holders(reply, 1);
        int permits = (int) Math.max(Math.max(1, number(reply.get(0))), holders.size());
        return Optional.of(LockInfo.of(name, LockKind.PERMIT, holders).withPermits(permits));
    }

    private static List<Holder> holders(List<Object> reply, int from) {
        List<Holder> holders = new ArrayList<>((reply.size() - from) / 4);
        for (int i = from; i + 3 < reply.size(); i += 4) {
            holders.add(Holder.of(
                    String.valueOf(reply.get(i)),
                    String.valueOf(reply.get(i + 3)),
                    number(reply.get(i + 2)),
                    Instant.ofEpochMilli(number(reply.get(i + 1)))));
        }
        return holders;
    }

    private static long number(Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(String.valueOf(value));
        } catch (NumberFormatException e) {
            return 0; // not written by Baton: reads as no token rather than failing the listing
        }
    }

    /**
     * {@link dev.baton.spi.LockBackend#forceRelease} on one deployment where every grant lives (not
     * Redlock): reads both forms of the name, then breaks each matching holder by owner id with
     * {@link #breakHolder} (all sent together), so a holder that released meanwhile is left out and
     * no other grant is touched.
     */
    static List<LockInfo> forceRelease(
            RedisNode node,
            RedisKeys keys,
            String name,
            String ownerId,
            String waiting,
            long timeoutNanos,
            String backend) {
        List<LockInfo> held = RedisFailures.await(
                both(node, keys, name, waiting, true), timeoutNanos, name, backend, "force release (inspect)");
        List<LockInfo> broken = new ArrayList<>();
        for (LockInfo info : held) {
            List<Holder> hit = info.holders().stream()
                    .filter(holder -> ownerId == null || holder.ownerId().equals(ownerId))
                    .toList();
            List<CompletableFuture<Long>> calls = hit.stream()
                    .map(holder -> breakHolder(node, keys, name, info.kind(), holder.ownerId(), holder.fencingToken()))
                    .toList();
            RedisFailures.await(
                    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)),
                    timeoutNanos,
                    name,
                    backend,
                    "force release");
            List<Holder> done = new ArrayList<>();
            for (int i = 0; i < hit.size(); i++) {
                if (calls.get(i).join() == 1) {
                    done.add(hit.get(i));
                }
            }
            if (!done.isEmpty()) {
                broken.add(LockInfo.of(name, info.kind(), done)
                        .withPermits(info.permits())
                        .withWaiters(info.waiters()));
            }
        }
        return broken;
    }

    /**
     * Breaks one holder of a lock ({@link #FORCE_RELEASE}) or a semaphore ({@link RedisPermits}'s
     * release): 1 if it was held, else 0.
     *
     * @param raiseTo the token the name's counter must reach first (Redlock: the highest broken token
     *     of every master); 0 for none
     */
    static CompletableFuture<Long> breakHolder(
            RedisNode node, RedisKeys keys, String name, LockKind kind, String ownerId, long raiseTo) {
        if (kind == LockKind.PERMIT) {
            return RedisPermits.release(node, keys, name, ownerId);
        }
        return node.eval(
                FORCE_RELEASE,
                ScriptOutputType.INTEGER,
                keys.keys(name, kind.mode()),
                ownerId,
                RedisScripts.modeArg(kind.mode()),
                keys.channel(name),
                "",
                raiseTo > 0 ? Long.toString(raiseTo) : "",
                Long.toString(RedisScripts.fenceTtlMillis(java.time.Duration.ZERO)));
    }
}
