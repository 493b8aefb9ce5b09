package dev.baton.redis;

import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockInfo;
import dev.baton.spi.LockMode;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks on one Redis server, or on the master a Sentinel names (followed through failovers by
 * Lettuce). Acquire, renew and release are each one Lua script run with EVALSHA ({@link
 * RedisScripts}); waiters are woken by a PUBLISH from the release script.
 *
 * <p>Guarantees: a grant is a key that expires after the lease time on the server's clock; renew
 * and release act only when the owner id matches; fencing tokens strictly increase per name
 * (across restarts too, as long as the server clock does not go back). Limits: a single server is a
 * single point of truth; after a failover to a replica that had not yet received the grant, or a
 * restart without persistence, a second owner may be granted while the first still holds, which
 * the first learns at its next renewal. Use the fencing token to reject its late writes.
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
    private final long timeoutNanos;

    RedisLockBackend(String scheme, RedisURI uri, String keyPrefix, Duration operationTimeout) {
        this.keys = new RedisKeys(keyPrefix);
        this.resources = RedisResources.create();
        this.node = new RedisNode(uri, resources, operationTimeout, false);
        this.name = scheme + " " + node.address();
        // One second on top of Lettuce's own command timeout: its timeout fires first and says more.
        this.timeoutNanos = operationTimeout.plusSeconds(1).toNanos();
        this.notifications = new RedisNotifications(
                List.of(node), keys, operationTimeout, (ScheduledExecutorService) resources.eventExecutorGroup());
    }

    @Override
    public String name() {
        return name;
    }

    static long fenceTtlMillis(Duration leaseTime) {
        return Math.max(Duration.ofDays(1).toMillis(), leaseTime.toMillis() * 10);
    }

    static String modeArg(LockMode mode) {
        return mode == LockMode.EXCLUSIVE ? "X" : "S";
    }

    static long number(Object value) {
        return value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value));
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        List<Object> reply = RedisFailures.await(
                node.eval(
                        RedisScripts.ACQUIRE,
                        ScriptOutputType.MULTI,
                        keys.keys(request.name()),
                        request.ownerId(),
                        modeArg(request.mode()),
                        Long.toString(Math.max(1, request.leaseTime().toMillis())),
                        Long.toString(fenceTtlMillis(request.leaseTime()))),
                timeoutNanos,
                request.name(),
                name,
                "acquire");
        if (number(reply.get(0)) != 1) {
            return Optional.empty();
        }
        long token = number(reply.get(1));
        long serverNow = number(reply.get(2));
        return Optional.of(new Grant(
                request.name(),
                request.ownerId(),
                request.mode(),
                token,
                Instant.ofEpochMilli(serverNow + request.leaseTime().toMillis()),
                null));
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        List<Object> reply = RedisFailures.await(
                node.eval(
                        RedisScripts.RENEW,
                        ScriptOutputType.MULTI,
                        keys.keys(grant.name()),
                        grant.ownerId(),
                        modeArg(grant.mode()),
                        Long.toString(Math.max(1, leaseTime.toMillis()))),
                timeoutNanos,
                grant.name(),
                name,
                "renew");
        if (number(reply.get(0)) != 1) {
            return Optional.empty();
        }
        return Optional.of(grant.withExpiresAt(Instant.ofEpochMilli(number(reply.get(1)) + leaseTime.toMillis())));
    }

    CompletableFuture<Long> releaseAsync(String lockName, String ownerId, LockMode mode) {
        return node.eval(
                RedisScripts.RELEASE,
                ScriptOutputType.INTEGER,
                keys.keys(lockName),
                ownerId,
                modeArg(mode),
                keys.channel(lockName));
    }

    @Override
    public boolean release(Grant grant) {
        Long released = RedisFailures.await(
                releaseAsync(grant.name(), grant.ownerId(), grant.mode()), timeoutNanos, grant.name(), name, "release");
        return released != null && released == 1;
    }

    /**
     * Sends the release without waiting for it: Lettuce keeps commands in order on the connection,
     * so it runs after the attempt it cleans up, and a server that cannot be reached does not delay
     * the caller's error by another operation timeout.
     */
    @Override
    public void abandon(LockRequest request) {
        releaseAsync(request.name(), request.ownerId(), request.mode()).whenComplete((released, failure) -> {
            if (failure != null) {
                log.debug(
                        "Baton lock '{}' on {}: clean-up after a failed attempt did not reach Redis; the key, if"
                                + " any, expires after its lease time: {}",
                        request.name(),
                        name,
                        failure.toString());
            }
        });
    }

    @Override
    public ReleaseNotifications releaseNotifications() {
        return notifications;
    }

    @Override
    public Optional<LockInfo> inspect(String lockName) {
        List<Object> reply = RedisFailures.await(
                node.eval(RedisScripts.INSPECT, ScriptOutputType.MULTI, keys.keys(lockName)),
                timeoutNanos,
                lockName,
                name,
                "inspect");
        return toInfo(lockName, reply);
    }

    static Optional<LockInfo> toInfo(String lockName, List<Object> reply) {
        if (reply == null || reply.isEmpty()) {
            return Optional.empty();
        }
        LockMode mode = "X".equals(String.valueOf(reply.get(0))) ? LockMode.EXCLUSIVE : LockMode.SHARED;
        List<String> owners = new ArrayList<>();
        for (int i = 3; i < reply.size(); i++) {
            owners.add(String.valueOf(reply.get(i)));
        }
        return Optional.of(
                new LockInfo(lockName, mode, owners, number(reply.get(2)), Instant.ofEpochMilli(number(reply.get(1)))));
    }

    @Override
    public void close() {
        node.close();
        RedisResources.shutdown(resources);
    }

    @Override
    public String toString() {
        return "RedisLockBackend[" + name + "]";
    }
}
