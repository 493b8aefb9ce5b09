package dev.baton.redis;

import dev.baton.LockMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;

/**
 * The Lua scripts. Every script gets {@code KEYS = {lock, fence, queue}} in exclusive mode and {@code
 * KEYS = {lock, fence, readers}} in shared mode (see {@link RedisKeys}), and reads the time from the
 * Redis server ({@code TIME}), never from the JVM.
 *
 * <p>Layout: the lock is a string key whose expiry (PX) is the lease. An exclusive lock's value is
 * its holder's description and its owner id, {@code "<description> <owner id>"} (the owner id alone
 * when there is no description; see {@link RedisHolders}), so taking a free lock is one {@code SET
 * NX PX} and releasing it one compare of the value's last word and {@code DEL}: the exclusive path
 * costs the server barely more than the plainest Redis lock. An
 * attempt that finds an exclusive lock taken appends {@code +} to the value ({@code KEEPTTL}): only a
 * lock marked so has anyone to wake, so only its release looks at the queue and publishes; an
 * unmarked release is just the compare and {@code DEL}. A
 * shared lock's value is {@code S} (owner ids are 32 hex characters, so the two never collide); its
 * holders are members of the readers sorted set scored by their expiry in server milliseconds, and
 * the lock key then expires with the last reader; each reader's token and description are in the
 * descriptions hash beside it.
 *
 * <p>Hand-over (exclusive mode, single server and Cluster; not with {@code fair=false}, and Redlock
 * queues by ticket instead, see {@link RedlockTickets}): a client that
 * waits for a lock puts a member {@code "<owner> <lease ms> <channel>[\n<description>]"} into the lock's queue, a
 * sorted set scored by when the entry expires (a short time after its latest attempt, {@link
 * RedisLockBackend#queueEntryTtlMillis}; every retry refreshes it). A release that finds a live entry does not free the lock: it sets the
 * lock to that waiter's owner id for its lease, draws its token and publishes {@code "<owner>
 * <token>"} on the waiter's channel, so exactly one waiter wakes and owns the lock without another
 * round trip. A waiter that gives up removes its entry and releases what was handed to it
 * meanwhile ({@code RELEASE} with its member).
 *
 * <p>The fencing counter is its own key, incremented on every grant, so it also names the latest
 * grant's token ({@code INSPECT} reads it there). When it does not exist it is seeded with the
 * server time in microseconds and given a time to live of its own ({@code fence ttl}, at least a day
 * and ten leases), which every renewal extends; so tokens keep increasing even after the counter
 * expired or the server lost its data on restart, as long as the server clock does not go back and
 * fewer than a million grants per second were made on average since the counter was seeded.
 */
final class RedisScripts {
    private RedisScripts() {}

    /** How long a lock's fencing counter outlives its last use: a day, or ten lease times if longer. */
    static long fenceTtlMillis(Duration leaseTime) {
        return Math.max(Duration.ofDays(1).toMillis(), leaseTime.toMillis() * 10);
    }

    /** The scripts' argument for a lock mode. */
    static String modeArg(LockMode mode) {
        return mode == LockMode.EXCLUSIVE ? "X" : "S";
    }

    /** A script's integer reply, however the connection decoded it. */
    static long number(Object value) {
        return value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value));
    }

    /** A script and its SHA-1, for EVALSHA. */
    record Script(String name, String source, String sha) {
        static Script of(String name, String source) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
                return new Script(name, source, HexFormat.of().formatHex(digest));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-1 is missing from this JVM", e);
            }
        }
    }

    private static final String NOW = "local t = redis.call('TIME')\n"
            + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n";

    /**
     * Draws the next fencing token (KEYS[2]), seeding a missing counter from the server clock; ARGV[3]
     * or ARGV[4], as {@code fenceTtlArg} says, is the counter's time to live.
     */
    private static String nextToken(int fenceTtlArg) {
        return "local function nextToken()\n"
                + "  local token = redis.call('INCR', KEYS[2])\n"
                + "  if token == 1 then\n"
                + "    local t = redis.call('TIME')\n"
                + "    token = tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
                + "    redis.call('SET', KEYS[2], string.format('%.0f', token), 'PX', ARGV[" + fenceTtlArg + "])\n"
                + "  end\n"
                + "  return token\n"
                + "end\n";
    }

    /**
     * The owner id in an exclusive lock's value, {@code [<holder description> ]<owner id>[+]}: the
     * last space-separated word without the wanted mark (owner ids have neither spaces nor {@code +}).
     */
    static final String OWNER_OF = "local function ownerOf(v)\n"
            + "  local o = string.match(v, '[^ ]*$')\n"
            + "  if string.sub(o, -1) == '+' then o = string.sub(o, 1, -2) end\n"
            + "  return o\n"
            + "end\n";

    /**
     * Drops the descriptions ({@code hash}, owner to {@code "<token> <holder>"}) of the holders of
     * {@code holders} (a sorted set scored by expiry) that expired: all of them when the set is gone,
     * else up to 100 of the expired (the rest go with a later call, or with the hash's own expiry).
     */
    static final String PRUNE_DESCRIPTIONS = "local function pruneDescriptions(holders, hash, now)\n"
            + "  if not hash then return end\n"
            + "  if redis.call('EXISTS', holders) == 0 then redis.call('DEL', hash) return end\n"
            + "  local gone = redis.call('ZRANGEBYSCORE', holders, '-inf', now, 'LIMIT', 0, 100)\n"
            + "  if #gone > 0 then redis.call('HDEL', hash, unpack(gone)) end\n"
            + "end\n"
            + "local function describe(hash, owner, token, holder, ttl)\n"
            + "  if not hash then return end\n"
            + "  redis.call('HSET', hash, owner, string.format('%.0f', token) .. ' ' .. holder)\n"
            + "  redis.call('PEXPIRE', hash, ttl)\n"
            + "end\n";

    /** Recomputes the shared lock's expiry as the latest reader's; deletes it when none is left. */
    private static final String SHARED_TTL = "local function sharedTtl(now)\n"
            + "  local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')\n"
            + "  if #last == 0 then return 0 end\n"
            + "  local ttl = tonumber(last[2]) - now\n"
            + "  if ttl < 1 then ttl = 1 end\n"
            + "  redis.call('PEXPIRE', KEYS[1], ttl)\n"
            + "  redis.call('PEXPIRE', KEYS[3], ttl)\n"
            + "  return ttl\n"
            + "end\n";

    /**
     * ARGV: owner, mode (X|S), lease ms, fence ttl ms, holder description (may be empty), queue
     * member or empty, and with a member how long its queue entry lives after this attempt (ms; the
     * lease time when absent). An exclusive grant stores the description in the lock's value before
     * the owner id; a shared grant stores {@code "<token> <description>"} under its owner id in the
     * descriptions hash (KEYS[4] in shared mode, see {@link RedisKeys#keys(String,
     * dev.baton.LockMode)}), which lives the fence ttl and drops expired readers' entries. Returns the fencing
     * token (positive) if granted, else 0. The exclusive path reads no clock (TIME costs a script
     * more than the SET NX does) unless it queues: only seeding a missing counter and queueing need
     * the server time. A queued waiter that finds the lock already handed to it (its message still
     * on the way) takes it here, with a fresh lease.
     */
    static final Script ACQUIRE = Script.of(
            "acquire",
            nextToken(4)
                    + OWNER_OF
                    + "local holder = ARGV[5] or ''\n"
                    + "local member = ARGV[6] or ''\n"
                    + "if ARGV[2] == 'X' then\n"
                    + "  local value = ARGV[1]\n"
                    + "  if holder ~= '' then value = holder .. ' ' .. value end\n"
                    + "  if redis.call('SET', KEYS[1], value, 'NX', 'PX', ARGV[3]) then\n"
                    + "    if member ~= '' then\n"
                    + "      redis.call('ZREM', KEYS[3], member)\n"
                    + "      if redis.call('ZCARD', KEYS[3]) > 0 then\n"
                    + "        redis.call('SET', KEYS[1], value .. '+', 'KEEPTTL')\n"
                    + "      end\n"
                    + "    end\n"
                    + "    return nextToken()\n"
                    + "  end\n"
                    + "  local held = redis.call('GET', KEYS[1])\n"
                    + "  if held and ownerOf(held) == ARGV[1] then\n"
                    + "    redis.call('PEXPIRE', KEYS[1], ARGV[3])\n"
                    + "    return tonumber(redis.call('GET', KEYS[2]))\n"
                    + "  end\n"
                    + "  if held and held ~= 'S' and string.sub(held, -1) ~= '+' then\n"
                    + "    redis.call('SET', KEYS[1], held .. '+', 'KEEPTTL')\n"
                    + "  end\n"
                    + "  if member == '' then return 0 end\n"
                    + "  local t = redis.call('TIME')\n"
                    + "  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
                    + "  local ttl = tonumber(ARGV[7] or ARGV[3])\n"
                    + "  redis.call('ZADD', KEYS[3], now + ttl, member)\n"
                    + "  if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end\n"
                    + "  return 0\n"
                    + "end\n"
                    + NOW
                    + SHARED_TTL
                    + PRUNE_DESCRIPTIONS
                    + "local held = redis.call('GET', KEYS[1])\n"
                    + "if held and held ~= 'S' then\n"
                    + "  if string.sub(held, -1) ~= '+' then redis.call('SET', KEYS[1], held .. '+', 'KEEPTTL') end\n"
                    + "  return 0\n"
                    + "end\n"
                    + "pruneDescriptions(KEYS[3], KEYS[4], now)\n"
                    + "redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)\n"
                    + "local token = nextToken()\n"
                    + "redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), ARGV[1])\n"
                    + "describe(KEYS[4], ARGV[1], token, holder, ARGV[4])\n"
                    + "redis.call('SET', KEYS[1], 'S')\n"
                    + "sharedTtl(now)\n"
                    + "return token\n");

    /**
     * Renews many locks of one client in one call (see {@link RedisRenewals}); each is extended only
     * if this owner still holds it. KEYS: four keys of each lock in turn (lock, fence, queue or
     * readers, descriptions); ARGV: lease ms, fence ttl ms, then owner and mode of each lock in turn.
     * Semaphore permits ride along with mode {@code P} and their own four keys ({@link
     * RedisPermits#RENEW_FUNCTION}). A renewed shared grant or permit keeps its descriptions hash for
     * the fence ttl too. Returns {server now ms, then
     * 1 (extended) or 0 (not held) for each lock}. On a Cluster every lock of one call must live in
     * one slot.
     */
    static final Script RENEW_ALL = Script.of(
            "renew-all",
            NOW
                    + OWNER_OF
                    + RedisPermits.RENEW_FUNCTION
                    + "local lease = tonumber(ARGV[1])\n"
                    + "local out = {now}\n"
                    + "for i = 1, (#ARGV - 2) / 2 do\n"
                    + "  local lock, fence, third = KEYS[4 * i - 3], KEYS[4 * i - 2], KEYS[4 * i - 1]\n"
                    + "  local owner, mode = ARGV[2 * i + 1], ARGV[2 * i + 2]\n"
                    + "  local ok = 0\n"
                    + "  if mode == 'P' then\n"
                    + "    ok = renewPermit(lock, third, owner, now, lease, tonumber(ARGV[2]))\n"
                    + "  elseif mode == 'X' then\n"
                    + "    local held = redis.call('GET', lock)\n"
                    + "    if held and ownerOf(held) == owner then\n"
                    + "      redis.call('PEXPIRE', lock, lease)\n"
                    + "      ok = 1\n"
                    + "    end\n"
                    + "  elseif redis.call('GET', lock) == 'S' then\n"
                    + "    local score = redis.call('ZSCORE', third, owner)\n"
                    + "    if score and tonumber(score) > now then\n"
                    + "      redis.call('ZADD', third, now + lease, owner)\n"
                    + "      local last = redis.call('ZRANGE', third, -1, -1, 'WITHSCORES')\n"
                    + "      local ttl = math.max(1, tonumber(last[2]) - now)\n"
                    + "      redis.call('PEXPIRE', lock, ttl)\n"
                    + "      redis.call('PEXPIRE', third, ttl)\n"
                    + "      ok = 1\n"
                    + "    end\n"
                    + "  end\n"
                    + "  if ok == 1 then\n"
                    + "    redis.call('PEXPIRE', fence, ARGV[2])\n"
                    + "    if mode ~= 'X' then redis.call('PEXPIRE', KEYS[4 * i], ARGV[2]) end\n"
                    + "  end\n"
                    + "  out[i + 1] = ok\n"
                    + "end\n"
                    + "return out\n");

    /**
     * ARGV: owner, mode, channel, queue member (optional, exclusive mode). Removes the owner's queue
     * entry if given; releases only this owner's hold. An exclusive lock with a live waiter in the
     * queue goes to that waiter (see the class comment); otherwise a lock that became free is
     * announced on the channel. A queue member {@code "<owner> <lease ms> <channel>[\n<holder>]"}
     * gives the waiter's description to the value it is handed. Returns 1 if the owner held it, else
     * 0.
     */
    static final Script RELEASE = Script.of(
            "release",
            OWNER_OF
                    + "if ARGV[2] == 'X' then\n"
                    + "  if ARGV[4] and ARGV[4] ~= '' then redis.call('ZREM', KEYS[3], ARGV[4]) end\n"
                    + "  local held = redis.call('GET', KEYS[1])\n"
                    + "  if not held or ownerOf(held) ~= ARGV[1] then return 0 end\n"
                    + "  if string.sub(held, -1) ~= '+' then\n"
                    + "    redis.call('DEL', KEYS[1])\n"
                    + "    return 1\n"
                    + "  end\n"
                    + "  if KEYS[3] and redis.call('EXISTS', KEYS[3]) == 1 then\n"
                    + "    local t = redis.call('TIME')\n"
                    + "    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
                    + "    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)\n"
                    + "    local head = redis.call('ZRANGE', KEYS[3], 0, 0)\n"
                    + "    if #head == 1 then\n"
                    + "      local owner, lease, channel = string.match(head[1], '^(%S+) (%d+) (.+)$')\n"
                    + "      local value = owner and owner .. '+'\n"
                    + "      if channel then\n"
                    + "        local c, holder = string.match(channel, '^(.*)\\n([^\\n]*)$')\n"
                    + "        if c then channel = c; value = holder .. ' ' .. value end\n"
                    + "      end\n"
                    + "      redis.call('ZREM', KEYS[3], head[1])\n"
                    + "      if owner then\n"
                    + "        redis.call('SET', KEYS[1], value, 'PX', lease)\n"
                    + "        local token = redis.call('INCR', KEYS[2])\n"
                    + "        if token == 1 then\n"
                    + "          token = tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
                    + "          local ttl = math.max(86400000, tonumber(lease) * 10)\n"
                    + "          redis.call('SET', KEYS[2], string.format('%.0f', token), 'PX', ttl)\n"
                    + "        end\n"
                    + "        redis.call('PUBLISH', channel, owner .. ' ' .. string.format('%.0f', token))\n"
                    + "        return 1\n"
                    + "      end\n"
                    + "    end\n"
                    + "  end\n"
                    + "  redis.call('DEL', KEYS[1])\n"
                    + "  redis.call('PUBLISH', ARGV[3], 'X')\n"
                    + "  return 1\n"
                    + "end\n"
                    + NOW
                    + SHARED_TTL
                    + "if redis.call('ZREM', KEYS[3], ARGV[1]) == 0 then return 0 end\n"
                    + "if KEYS[4] then redis.call('HDEL', KEYS[4], ARGV[1]) end\n"
                    + "redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)\n"
                    + "if redis.call('GET', KEYS[1]) ~= 'S' then return 1 end\n"
                    + "if sharedTtl(now) == 0 then\n"
                    + "  redis.call('DEL', KEYS[1], KEYS[3])\n"
                    + "  redis.call('PUBLISH', ARGV[3], 'S')\n"
                    + "end\n"
                    + "return 1\n");

    /**
     * Redlock's second round. ARGV: owner, mode, token, fence ttl ms. While this owner still holds
     * the lock on this node, raises the node's counter to at least the token (the maximum of the
     * majority's counters), which is then the grant's token. With four KEYS (Redlock's fair
     * exclusive mode: lock, fence, tickets, ticket expiries) it also takes the owner's entry out of
     * the waiters, now that a majority granted, and marks the lock wanted if others still wait.
     * Returns 1 if held, else 0.
     */
    static final Script RAISE = Script.of(
            "raise",
            OWNER_OF
                    + "local held\n"
                    + "if ARGV[2] == 'X' then\n"
                    + "  local value = redis.call('GET', KEYS[1])\n"
                    + "  held = value and ownerOf(value) == ARGV[1]\n"
                    + "else\n"
                    + "  held = redis.call('ZSCORE', KEYS[3], ARGV[1]) ~= false\n"
                    + "end\n"
                    + "if not held then return 0 end\n"
                    + "local current = tonumber(redis.call('GET', KEYS[2]) or '0')\n"
                    + "if current < tonumber(ARGV[3]) then\n"
                    + "  redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])\n"
                    + "end\n"
                    + "if ARGV[2] == 'X' and KEYS[4] then\n"
                    + "  redis.call('ZREM', KEYS[3], ARGV[1])\n"
                    + "  redis.call('ZREM', KEYS[4], ARGV[1])\n"
                    + "  local value = redis.call('GET', KEYS[1])\n"
                    + "  if redis.call('ZCARD', KEYS[3]) > 0 and value and string.sub(value, -1) ~= '+' then\n"
                    + "    redis.call('SET', KEYS[1], value .. '+', 'KEEPTTL')\n"
                    + "  end\n"
                    + "end\n"
                    + "return 1\n");

    /**
     * Redlock's fair exclusive acquire on one master (see {@link RedlockTickets}). KEYS: lock, fence,
     * tickets (a sorted set of waiting owners scored by their ticket), ticket expiries (the same
     * owners scored by when their entry expires, server ms). ARGV: owner, lease ms, fence ttl ms,
     * ticket (empty on an attempt that does not wait yet), entry ttl ms, holder description (may be empty). Drops expired entries,
     * writes (or refreshes) the owner's entry, and grants a free lock only to the first entry, lowest
     * ticket then lowest owner id, or to anyone while nobody waits. The entry stays until {@link
     * #RAISE} (run with the same four keys) confirms the grant on a majority, so that masters keep
     * agreeing on the head while a round is undecided. Returns the token if granted, else 0.
     */
    static final Script REDLOCK_ACQUIRE = Script.of(
            "redlock-acquire",
            nextToken(3)
                    + OWNER_OF
                    + "local owner = ARGV[1]\n"
                    + "local value = owner\n"
                    + "if ARGV[6] and ARGV[6] ~= '' then value = ARGV[6] .. ' ' .. owner end\n"
                    + "local held = redis.call('GET', KEYS[1])\n"
                    + "if held and ownerOf(held) == owner then\n"
                    + "  redis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
                    + "  return tonumber(redis.call('GET', KEYS[2]))\n"
                    + "end\n"
                    + "if not held and ARGV[4] == '' and redis.call('EXISTS', KEYS[3]) == 0 then\n"
                    + "  redis.call('SET', KEYS[1], value, 'PX', ARGV[2])\n"
                    + "  return nextToken()\n"
                    + "end\n"
                    + "local t = redis.call('TIME')\n"
                    + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
                    + "local gone = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 100)\n"
                    + "if #gone > 0 then\n"
                    + "  redis.call('ZREM', KEYS[3], unpack(gone))\n"
                    + "  redis.call('ZREM', KEYS[4], unpack(gone))\n"
                    + "end\n"
                    + "if ARGV[4] ~= '' then\n"
                    + "  local ttl = tonumber(ARGV[5])\n"
                    + "  redis.call('ZADD', KEYS[3], ARGV[4], owner)\n"
                    + "  redis.call('ZADD', KEYS[4], now + ttl, owner)\n"
                    + "  if redis.call('PTTL', KEYS[3]) < ttl then\n"
                    + "    redis.call('PEXPIRE', KEYS[3], ttl)\n"
                    + "    redis.call('PEXPIRE', KEYS[4], ttl)\n"
                    + "  end\n"
                    + "end\n"
                    + "if held then\n"
                    + "  if held ~= 'S' and string.sub(held, -1) ~= '+' then\n"
                    + "    redis.call('SET', KEYS[1], held .. '+', 'KEEPTTL')\n"
                    + "  end\n"
                    + "  return 0\n"
                    + "end\n"
                    + "local head = redis.call('ZRANGE', KEYS[3], 0, 0)\n"
                    + "if #head == 1 and head[1] ~= owner then return 0 end\n"
                    + "redis.call('SET', KEYS[1], value, 'PX', ARGV[2])\n"
                    + "return nextToken()\n");

    /** Redlock: a waiter that gave up leaves. KEYS: tickets, ticket expiries. ARGV: owner. */
    static final Script REDLOCK_LEAVE = Script.of(
            "redlock-leave",
            "redis.call('ZREM', KEYS[1], ARGV[1])\n" + "return redis.call('ZREM', KEYS[2], ARGV[1])\n");
}
