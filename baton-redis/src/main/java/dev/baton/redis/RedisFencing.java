package dev.baton.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import java.util.OptionalLong;

/**
 * A fenced write to Redis: the protected resource's side of a lock's fencing token, for data kept
 * in Redis. A lock holder can pause (GC, swapping, SIGSTOP) past its lease while another client
 * takes the lock; the stale holder's late write must then be refused by the resource itself, and
 * the fencing token ({@link dev.baton.Lease#fencingToken()}) is what lets it tell. This class does
 * that for one Redis key.
 *
 * <pre>{@code
 * try (Lease lease = client.lock("invoice-42").acquire(Duration.ofSeconds(5))) {
 *     if (!RedisFencing.guardedSet(redis, "invoice:42", json, lease.fencingToken())) {
 *         // a later holder already wrote: this lease was lost, do not retry the write
 *     }
 * }
 * }</pre>
 *
 * <p>Layout: the key is a hash with two fields, {@value #VALUE_FIELD} (the data) and {@value
 * #TOKEN_FIELD} (the highest token any accepted write carried), so the data and its guard are
 * written together and cannot diverge. Read the data with {@code HGET key value}.
 *
 * <p>Guarantees: a write is accepted, atomically in one Lua script, only when its token is at least
 * the highest token the key has seen; an equal token is accepted (one holder writes several times
 * under one lease). Tokens are compared exactly as decimal integers (no rounding for tokens above
 * 2^53, as a Lua number comparison would do). Once a write with token {@code t} was accepted, no
 * write with a token below {@code t} is accepted while the key exists.
 *
 * <p>Limits: the guard is as durable as the key. If the key is lost (deleted, evicted, expired, a
 * restart without persistence, or a failover to a replica that had not received it), the highest
 * token is forgotten and the next write is accepted whatever its token. Keep such keys out of
 * eviction ({@code noeviction} or no TTL with a {@code volatile-*} policy), and give them the
 * persistence and replication the data needs anyway. Use one key per protected resource, and tokens
 * of one lock per key: tokens of different locks are not comparable.
 *
 * <p>Failure behaviour: the methods throw {@link NullPointerException} or {@link
 * IllegalArgumentException} for a missing argument or a negative token before sending anything,
 * and pass on Lettuce's exceptions (for example {@code RedisCommandExecutionException} with {@code
 * WRONGTYPE} when the key holds something other than a hash, or a timeout); on a timeout the write
 * may or may not have been applied, and repeating it with the same token is safe.
 */
public final class RedisFencing {
    /** The hash field that holds the data. */
    public static final String VALUE_FIELD = "value";

    /** The hash field that holds the highest fencing token of an accepted write. */
    public static final String TOKEN_FIELD = "fencing-token";

    /**
     * The guarded write as a Lua script, for clients that run it themselves ({@code EVAL script 1
     * key value token} with Jedis, Redisson's {@code RScript}, redis-cli...). {@code KEYS[1]}: the
     * key; {@code ARGV[1]}: the value; {@code ARGV[2]}: the fencing token as a decimal integer without
     * sign or leading zeros. Returns 1 if the write was accepted, 0 if the key has seen a higher
     * token; fails with an error reply for a malformed token.
     */
    public static final String GUARDED_SET_SCRIPT = "local token = ARGV[2]\n"
            + "if not string.match(token, '^%d+$') or (#token > 1 and string.sub(token, 1, 1) == '0') then\n"
            + "  return redis.error_reply('ERR fencing token must be a decimal integer of 0 or more without"
            + " leading zeros, not ' .. token)\n"
            + "end\n"
            // Compared digit by digit: exact for any 64-bit token, and independent of the locale
            // (string < in Lua uses strcoll).
            + "local function below(a, b)\n"
            + "  if #a ~= #b then return #a < #b end\n"
            + "  for i = 1, #a do\n"
            + "    local x, y = string.byte(a, i), string.byte(b, i)\n"
            + "    if x ~= y then return x < y end\n"
            + "  end\n"
            + "  return false\n"
            + "end\n"
            + "local highest = redis.call('HGET', KEYS[1], '" + TOKEN_FIELD + "')\n"
            + "if highest and below(token, highest) then return 0 end\n"
            + "redis.call('HSET', KEYS[1], '" + VALUE_FIELD + "', ARGV[1], '" + TOKEN_FIELD + "', token)\n"
            + "return 1\n";

    private static final RedisScripts.Script GUARDED_SET = RedisScripts.Script.of("guarded-set", GUARDED_SET_SCRIPT);

    private static final RedisScripts.Script HIGHEST_TOKEN =
            RedisScripts.Script.of("highest-token", "return redis.call('HGET', KEYS[1], '" + TOKEN_FIELD + "')\n");

    private RedisFencing() {}

    /**
     * Writes {@code value} to {@code key} if {@code fencingToken} is at least the highest token the
     * key has seen, and records the token; otherwise leaves the key alone.
     *
     * @param redis synchronous commands of a Lettuce connection (a plain, Sentinel or cluster one)
     * @param key the key to write; it holds the value and the highest accepted token together
     * @param value the value to store
     * @param fencingToken the token of the lease the caller holds, usually {@code
     *     lease.fencingToken()}
     * @return {@code true} if the value was written; {@code false} if the key has seen a higher token
     *     (the caller's lease is stale: stop acting on it)
     * @throws IllegalArgumentException if {@code fencingToken} is negative
     */
    public static boolean guardedSet(
            RedisScriptingCommands<String, String> redis, String key, String value, long fencingToken) {
        require(redis, "redis", "guardedSet");
        require(key, "key", "guardedSet");
        require(value, "value", "guardedSet");
        if (fencingToken < 0) {
            throw new IllegalArgumentException("RedisFencing.guardedSet: the fencing token must be 0 or more, but was "
                    + fencingToken + "; pass lease.fencingToken()");
        }
        Long accepted = run(redis, GUARDED_SET, ScriptOutputType.INTEGER, key, value, Long.toString(fencingToken));
        return accepted != null && accepted == 1;
    }

    /**
     * {@return the highest fencing token an accepted write to {@code key} carried, or empty when the
     * key does not exist or was never written by {@link #guardedSet}}
     *
     * @param redis synchronous commands of a Lettuce connection (a plain, Sentinel or cluster one)
     * @param key the key written by {@link #guardedSet}
     */
    public static OptionalLong highestToken(RedisScriptingCommands<String, String> redis, String key) {
        require(redis, "redis", "highestToken");
        require(key, "key", "highestToken");
        String token = run(redis, HIGHEST_TOKEN, ScriptOutputType.VALUE, key);
        return token == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(token));
    }

    /** EVALSHA, loading the script with EVAL when the server does not have it cached. */
    private static <T> T run(
            RedisScriptingCommands<String, String> redis,
            RedisScripts.Script script,
            ScriptOutputType type,
            String key,
            String... args) {
        String[] keys = {key};
        try {
            return redis.evalsha(script.sha(), type, keys, args);
        } catch (RedisNoScriptException e) {
            return redis.eval(script.source(), type, keys, args);
        }
    }

    private static void require(Object argument, String name, String method) {
        if (argument == null) {
            throw new NullPointerException("RedisFencing." + method + ": " + name + " must not be null");
        }
    }
}
