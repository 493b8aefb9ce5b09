package dev.baton.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts. Every script gets {@code KEYS = {lock, fence, readers}} (see {@link RedisKeys})
 * and reads the time from the Redis server ({@code TIME}), never from the JVM.
 *
 * <p>Layout: the lock is a hash {@code {mode = X|S, owner, token}} whose expiry (PEXPIRE) is the
 * lease; shared holders are members of the readers sorted set scored by their expiry in server
 * milliseconds, and the lock hash then expires with the last reader. The fencing counter is seeded
 * with the server time in microseconds when it does not exist, then incremented on every grant, so
 * tokens keep increasing even after the counter key expired or the server lost its data on restart
 * (as long as the server clock does not go back and fewer than a million grants per second were
 * made on average since the counter was seeded).
 */
final class RedisScripts {
    private RedisScripts() {}

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
     * ARGV: owner, mode (X|S), lease ms, fence ttl ms. Returns {1, token, server now ms} or {0, pttl of
     * the holder, server now ms}.
     */
    static final Script ACQUIRE = Script.of(
            "acquire",
            NOW + SHARED_TTL
                    + "local lease = tonumber(ARGV[3])\n"
                    + "local mode = redis.call('HGET', KEYS[1], 'mode')\n"
                    + "if ARGV[2] == 'X' then\n"
                    + "  if mode then return {0, redis.call('PTTL', KEYS[1]), now} end\n"
                    + "else\n"
                    + "  if mode == 'X' then return {0, redis.call('PTTL', KEYS[1]), now} end\n"
                    + "  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)\n"
                    + "end\n"
                    + "if redis.call('EXISTS', KEYS[2]) == 0 then\n"
                    + "  redis.call('SET', KEYS[2], string.format('%.0f', now * 1000))\n"
                    + "end\n"
                    + "local token = redis.call('INCR', KEYS[2])\n"
                    + "redis.call('PEXPIRE', KEYS[2], ARGV[4])\n"
                    + "if ARGV[2] == 'X' then\n"
                    + "  redis.call('HSET', KEYS[1], 'mode', 'X', 'owner', ARGV[1], 'token', token)\n"
                    + "  redis.call('PEXPIRE', KEYS[1], lease)\n"
                    + "else\n"
                    + "  redis.call('ZADD', KEYS[3], now + lease, ARGV[1])\n"
                    + "  redis.call('HSET', KEYS[1], 'mode', 'S', 'owner', '', 'token', token)\n"
                    + "  sharedTtl(now)\n"
                    + "end\n"
                    + "return {1, token, now}\n");

    /** ARGV: owner, mode, lease ms. Returns {1, server now ms} if extended, {0, now} if not held. */
    static final Script RENEW = Script.of(
            "renew",
            NOW + SHARED_TTL
                    + "if ARGV[2] == 'X' then\n"
                    + "  if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then\n"
                    + "    redis.call('PEXPIRE', KEYS[1], ARGV[3])\n"
                    + "    return {1, now}\n"
                    + "  end\n"
                    + "  return {0, now}\n"
                    + "end\n"
                    + "if redis.call('HGET', KEYS[1], 'mode') ~= 'S' then return {0, now} end\n"
                    + "local score = redis.call('ZSCORE', KEYS[3], ARGV[1])\n"
                    + "if (not score) or tonumber(score) <= now then return {0, now} end\n"
                    + "redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), ARGV[1])\n"
                    + "sharedTtl(now)\n"
                    + "return {1, now}\n");

    /**
     * ARGV: owner, mode, channel. Deletes only this owner's hold; publishes on the channel when the
     * lock became free. Returns 1 if the owner held it, else 0.
     */
    static final Script RELEASE = Script.of(
            "release",
            NOW + SHARED_TTL
                    + "if ARGV[2] == 'X' then\n"
                    + "  if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then\n"
                    + "    redis.call('DEL', KEYS[1])\n"
                    + "    redis.call('PUBLISH', ARGV[3], 'X')\n"
                    + "    return 1\n"
                    + "  end\n"
                    + "  return 0\n"
                    + "end\n"
                    + "if redis.call('ZREM', KEYS[3], ARGV[1]) == 0 then return 0 end\n"
                    + "redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)\n"
                    + "if redis.call('HGET', KEYS[1], 'mode') ~= 'S' then return 1 end\n"
                    + "if sharedTtl(now) == 0 then\n"
                    + "  redis.call('DEL', KEYS[1], KEYS[3])\n"
                    + "  redis.call('PUBLISH', ARGV[3], 'S')\n"
                    + "end\n"
                    + "return 1\n");

    /**
     * Redlock's second round. ARGV: owner, mode, token, fence ttl ms. While this owner still holds
     * the lock on this node, raises the node's counter to at least the token (the maximum of the
     * majority's counters) and records it as the grant's token. Returns 1 if held, else 0.
     */
    static final Script RAISE = Script.of(
            "raise",
            "local held\n"
                    + "if ARGV[2] == 'X' then\n"
                    + "  held = redis.call('HGET', KEYS[1], 'owner') == ARGV[1]\n"
                    + "else\n"
                    + "  held = redis.call('ZSCORE', KEYS[3], ARGV[1]) ~= false\n"
                    + "end\n"
                    + "if not held then return 0 end\n"
                    + "local current = tonumber(redis.call('GET', KEYS[2]) or '0')\n"
                    + "if current < tonumber(ARGV[3]) then\n"
                    + "  redis.call('SET', KEYS[2], ARGV[3])\n"
                    + "  redis.call('PEXPIRE', KEYS[2], ARGV[4])\n"
                    + "end\n"
                    + "redis.call('HSET', KEYS[1], 'token', ARGV[3])\n"
                    + "return 1\n");

    /**
     * No ARGV. Returns {} when free, else {mode, expiry in server ms, token, owner...} (the readers
     * that have not expired, for shared mode).
     */
    static final Script INSPECT = Script.of(
            "inspect",
            NOW
                    + "local mode = redis.call('HGET', KEYS[1], 'mode')\n"
                    + "if not mode then return {} end\n"
                    + "local out = {mode, now + redis.call('PTTL', KEYS[1]), redis.call('HGET', KEYS[1], 'token')}\n"
                    + "if mode == 'X' then\n"
                    + "  out[4] = redis.call('HGET', KEYS[1], 'owner')\n"
                    + "else\n"
                    + "  for _, r in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. now, '+inf')) do\n"
                    + "    out[#out + 1] = r\n"
                    + "  end\n"
                    + "end\n"
                    + "return out\n");
}
