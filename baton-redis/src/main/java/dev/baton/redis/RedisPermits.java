package dev.baton.redis;

import dev.baton.LockConfigurationException;
import dev.baton.LockMode;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import io.lettuce.core.ScriptOutputType;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Semaphore permits on one Redis server, a Sentinel's master or a Redis Cluster: the whole wire
 * protocol of {@code LockClient.semaphore(name, permits)} (key layout, scripts, and the calls that
 * run them). {@link RedisLockBackend} hands every permit request and permit grant here; renewal
 * runs inside the locks' batched {@link RedisScripts#RENEW_ALL} ({@link #RENEW_FUNCTION}), so one
 * call renews a client's locks and permits together.
 *
 * <p>Keys, all under the hash tag of the name so that they share one Cluster slot and one script
 * may touch them all, in a namespace of their own ({@code <prefix>sem:{<name>}:...}, while a lock's
 * keys are {@code <prefix>{<name>}:...}, so a semaphore and a lock of one name never meet):
 *
 * <ul>
 *   <li>{@code holders}: a sorted set of the holders' owner ids scored by when each permit expires,
 *       in server milliseconds ({@code TIME}, never the JVM's clock). Expired members are dropped
 *       by the next acquire before it counts, so a crashed holder's permit comes back after its
 *       lease time without anyone's help. The key expires with its last member.
 *   <li>{@code fence}: the fencing counter, incremented on every grant, seeded from the server time
 *       in microseconds when missing, exactly like a lock's (see {@link RedisScripts}), so tokens
 *       strictly increase per name even after the counter expired or the server lost its data.
 *   <li>{@code permits}: the count recorded by the first acquisition, checked by every acquisition
 *       (a different count is refused with both counts, never silently changed), kept at least a
 *       day and ten lease times after the last acquisition or renewal (always longer than any
 *       holder's lease). A trailing {@code +} marks that some attempt was refused since the last
 *       release: only then does a release {@code PUBLISH} (and clear the mark), so releases with
 *       nobody waiting cost no publish, which on a Cluster would be broadcast to every node.
 * </ul>
 *
 * <p>Why one script per acquisition: dropping the expired, counting and adding must be atomic, or
 * two clients that both count N - 1 holders would both add themselves. Waiters are not queued in
 * Redis (unlike exclusive locks' hand-over, which picks one waiter for one lock): a release wakes
 * every waiter subscribed to the semaphore's channel and they race for the free permit through the
 * same acquire script, and the core's bounded poll covers permits that come back by expiry.
 */
final class RedisPermits {
    private static final Logger log = LoggerFactory.getLogger(RedisPermits.class);

    /** {@link Grant#backendState()} of a permit grant: renewal and release tell permits from shared locks by it. */
    enum Marker {
        PERMIT
    }

    private static final String NOW = "local t = redis.call('TIME')\n"
            + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n";

    /**
     * KEYS: holders, fence, permits, descriptions. ARGV: owner, lease ms, fence ttl ms, permits,
     * holder description (may be empty). Returns the
     * fencing token (positive) if granted, 0 if every permit is held, or minus the recorded count
     * when it differs from ARGV[4]. An owner that already holds a permit (an attempt repeated after
     * a reconnect) keeps it with a fresh expiry and a fresh token: it never counts twice.
     */
    static final RedisScripts.Script ACQUIRE = RedisScripts.Script.of(
            "permit-acquire",
            NOW
                    + RedisScripts.PRUNE_DESCRIPTIONS
                    + "local ttl = tonumber(ARGV[3])\n"
                    + "local stored = redis.call('GET', KEYS[3])\n"
                    + "local marked = false\n"
                    + "if stored then\n"
                    + "  if string.sub(stored, -1) == '+' then stored = string.sub(stored, 1, -2); marked = true end\n"
                    + "  if stored ~= ARGV[4] then\n"
                    + "    local n = tonumber(stored)\n"
                    + "    if n and n >= 1 and n == math.floor(n) then return -n end\n"
                    + "    return redis.error_reply('the key ' .. KEYS[3] .. ' holds ' .. stored\n"
                    + "      .. ', not a permit count; delete it')\n"
                    + "  end\n"
                    + "end\n"
                    + "pruneDescriptions(KEYS[1], KEYS[4], now)\n"
                    + "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)\n"
                    + "local granted = redis.call('ZSCORE', KEYS[1], ARGV[1])\n"
                    + "  or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[4])\n"
                    + "local value = ARGV[4]\n"
                    + "if marked or not granted then value = value .. '+' end\n"
                    + "redis.call('SET', KEYS[3], value, 'PX', math.max(ttl, redis.call('PTTL', KEYS[3])))\n"
                    + "if not granted then return 0 end\n"
                    + "redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])\n"
                    + "local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')\n"
                    + "redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(last[2]) - now))\n"
                    + "local token = redis.call('INCR', KEYS[2])\n"
                    + "if token == 1 then\n"
                    + "  token = tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
                    + "  redis.call('SET', KEYS[2], string.format('%.0f', token), 'PX', ttl)\n"
                    + "end\n"
                    + "describe(KEYS[4], ARGV[1], token, ARGV[5] or '', ttl)\n"
                    + "return token\n");

    /**
     * KEYS: holders, permits, descriptions. ARGV: owner, channel. Removes the owner's permit and its
     * description; if an attempt was
     * refused since the last release (the count is marked), clears the mark and publishes on the
     * channel. Returns 1 if the owner held a permit that had not expired, else 0.
     */
    static final RedisScripts.Script RELEASE = RedisScripts.Script.of(
            "permit-release",
            "local score = redis.call('ZSCORE', KEYS[1], ARGV[1])\n"
                    + "if not score then return 0 end\n"
                    + "redis.call('ZREM', KEYS[1], ARGV[1])\n"
                    + "if KEYS[3] then redis.call('HDEL', KEYS[3], ARGV[1]) end\n"
                    + NOW
                    + "if tonumber(score) <= now then return 0 end\n"
                    + "local stored = redis.call('GET', KEYS[2])\n"
                    + "if stored and string.sub(stored, -1) == '+' then\n"
                    + "  redis.call('SET', KEYS[2], string.sub(stored, 1, -2), 'KEEPTTL')\n"
                    + "  redis.call('PUBLISH', ARGV[2], 'P')\n"
                    + "end\n"
                    + "return 1\n");

    /**
     * The permit branch of {@link RedisScripts#RENEW_ALL}, which passes a permit's keys (holders,
     * fence, permits) where a lock's go and mode {@code P}. Extends the permit only while its member
     * is present and not expired ({@code ZADD XX}: never re-adds a permit the server dropped, which
     * another holder may have taken); keeps the count at least the fence ttl. Returns 1 if renewed.
     */
    static final String RENEW_FUNCTION = "local function renewPermit(holders, count, owner, now, lease, ttl)\n"
            + "  local score = redis.call('ZSCORE', holders, owner)\n"
            + "  if not score or tonumber(score) <= now then return 0 end\n"
            + "  redis.call('ZADD', holders, 'XX', now + lease, owner)\n"
            + "  local last = redis.call('ZRANGE', holders, -1, -1, 'WITHSCORES')\n"
            + "  redis.call('PEXPIRE', holders, math.max(1, tonumber(last[2]) - now))\n"
            + "  if redis.call('PTTL', count) < ttl then redis.call('PEXPIRE', count, ttl) end\n"
            + "  return 1\n"
            + "end\n";

    private final RedisNode node;
    private final RedisKeys keys;
    private final RedisReplicaWait replicaWait;
    private final String backend;
    private final long timeoutNanos;

    RedisPermits(RedisNode node, RedisKeys keys, RedisReplicaWait replicaWait, String backend, long timeoutNanos) {
        this.node = node;
        this.keys = keys;
        this.replicaWait = replicaWait;
        this.backend = backend;
        this.timeoutNanos = timeoutNanos;
    }

    static boolean isPermit(Grant grant) {
        return grant.backendState() == Marker.PERMIT;
    }

    /**
     * The semaphore's keys: holders, fence, permits, descriptions (owner id to {@code "<token>
     * <holder description>"}), in the order every permit script and renewal expects.
     */
    static String[] keys(RedisKeys keys, String name) {
        String base = base(keys, name);
        return new String[] {base + "holders", base + "fence", base + "permits", base + "descriptions"};
    }

    /** The name whose semaphore holders key is {@code key}, or null if it is none of this prefix. */
    static String semaphoreName(RedisKeys keys, String key) {
        return RedisKeys.nameIn(key, keys.prefix() + "sem:{", "}:holders");
    }

    /** The channel a release publishes on when someone waits for a permit of {@code name}. */
    static String channel(RedisKeys keys, String name) {
        return base(keys, name) + "released";
    }

    private static String base(RedisKeys keys, String name) {
        return keys.prefix() + "sem:{" + RedisKeys.encode(name) + "}:";
    }

    private String subject(String name) {
        return "Baton semaphore '" + name + "'";
    }

    /** One attempt: the grant, or empty if every permit is held. */
    Optional<Grant> tryAcquire(LockRequest request) {
        // The expiry reported is measured from before the request was sent, so it is never later
        // than the member's real expiry on the server.
        Instant sent = Instant.now();
        // The script keeps this owner's permit, or grants afresh, so it may be written twice.
        long reply = replicaWait.confirmedGrant(
                keys(keys, request.name())[0],
                via -> acquireOnce(request, via),
                () -> releaseAsync(request.name(), request.ownerId()),
                subject(request.name()),
                backend,
                "permit",
                request.leaseTime());
        if (reply < 0) {
            throw mismatch(request, -reply);
        }
        if (reply == 0) {
            return Optional.empty();
        }
        return Optional.of(Grant.builder(request.name(), request.ownerId(), LockMode.SHARED)
                .fencingToken(reply)
                .expiresAt(sent.plus(request.leaseTime()))
                .backendState(Marker.PERMIT)
                .build());
    }

    private long acquireOnce(LockRequest request, RedisConnector.Commands via) {
        Long reply = RedisFailures.awaitAs(
                node.<Long>eval(
                        via,
                        ACQUIRE,
                        ScriptOutputType.INTEGER,
                        keys(keys, request.name()),
                        request.ownerId(),
                        Long.toString(Math.max(1, request.leaseTime().toMillis())),
                        Long.toString(RedisScripts.fenceTtlMillis(request.leaseTime())),
                        Integer.toString(request.permits()),
                        RedisHolders.clean(request.holder())),
                timeoutNanos,
                subject(request.name()),
                backend,
                "acquire");
        return reply == null ? 0 : reply;
    }

    private LockConfigurationException mismatch(LockRequest request, long recorded) {
        return new LockConfigurationException(subject(request.name()) + " on " + backend + ": this client asks for "
                + request.permits() + " permits, but the semaphore was created with " + recorded
                + " (recorded in the key " + keys(keys, request.name())[2] + " by its first acquisition); give"
                + " every client the same count, or, to change it, delete the semaphore (that key) while no"
                + " permit is held; it also expires once the semaphore has been unused for a day");
    }

    private CompletableFuture<Long> releaseAsync(String name, String ownerId) {
        return release(node, keys, name, ownerId);
    }

    /** Removes {@code ownerId}'s permit of {@code name} ({@link #RELEASE}): 1 if it was held, else 0. */
    static CompletableFuture<Long> release(RedisNode node, RedisKeys keys, String name, String ownerId) {
        String[] all = keys(keys, name);
        return node.eval(
                RELEASE, ScriptOutputType.INTEGER, new String[] {all[0], all[2], all[3]}, ownerId, channel(keys, name));
    }

    /** Gives the permit back; true if it was still held. */
    boolean release(Grant grant) {
        Long released = RedisFailures.awaitAs(
                releaseAsync(grant.name(), grant.ownerId()), timeoutNanos, subject(grant.name()), backend, "release");
        return released != null && released == 1;
    }

    /**
     * Sends the release of whatever the attempt may have left without waiting for it (Lettuce runs
     * it after the attempt on the same connection); a failure leaves a permit that expires after its
     * lease time.
     */
    void abandon(LockRequest request) {
        releaseAsync(request.name(), request.ownerId()).whenComplete((released, failure) -> {
            if (failure != null) {
                log.debug(
                        "{} on {}: clean-up after a failed or abandoned attempt did not reach Redis; the permit,"
                                + " if any, expires after its lease time: {}",
                        subject(request.name()),
                        backend,
                        failure.toString());
            }
        });
    }
}
