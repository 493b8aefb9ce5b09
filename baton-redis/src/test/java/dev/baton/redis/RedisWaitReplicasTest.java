package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.servers.RedisSentinelServers;
import dev.baton.servers.RedisServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code waitReplicas=N}: a grant counts only once N replicas acknowledged it (Redis WAIT). */
@Timeout(60)
class RedisWaitReplicasTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(2))
            .operationTimeout(Duration.ofSeconds(1))
            .build();
    private static final RedisKeys KEYS = new RedisKeys(RedisKeys.DEFAULT_PREFIX);
    private static final Pattern WAIT_CALLS = Pattern.compile("cmdstat_wait:calls=(\\d+)");

    /** A plain connection to one server, to look at keys and counters. */
    record Peek(RedisClient client, StatefulRedisConnection<String, String> connection) implements AutoCloseable {
        static Peek at(RedisServer server) {
            RedisClient client = RedisClient.create(server.uri());
            return new Peek(client, client.connect());
        }

        /** A connection to a Cluster replica that answers reads (READONLY). */
        static Peek replicaAt(RedisServer server) {
            Peek peek = at(server);
            peek.sync().readOnly();
            return peek;
        }

        RedisCommands<String, String> sync() {
            return connection.sync();
        }

        boolean has(String lockName) {
            return sync().exists(KEYS.keys(lockName)[0]) == 1;
        }

        long waitCalls() {
            Matcher matcher = WAIT_CALLS.matcher(sync().info("commandstats"));
            return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    static String name(String what) {
        return what + "-" + UUID.randomUUID();
    }

    @Test
    void aGrantAndItsRenewalsCountOnceTheReplicaHasThem() {
        try (RedisSentinelServers servers = RedisSentinelServers.startWithReplicas(1);
                LockClient client = Baton.connect(servers.uri("waitReplicas=1"), OPTIONS);
                Peek master = Peek.at(servers.master());
                Peek replica = Peek.at(servers.replicas().get(0))) {
            String name = name("confirmed");
            long waitsBefore = master.waitCalls();
            Lease lease = client.lock(name).acquire(KitTime.grant());
            assertThat(master.waitCalls()).as("WAIT after the grant").isGreaterThan(waitsBefore);
            assertThat(replica.has(name))
                    .as("the replica acknowledged the grant before acquire returned")
                    .isTrue();

            Instant firstExpiry = lease.expiresAt();
            long waitsBeforeRenewal = master.waitCalls();
            Await.condition("a renewal", OPTIONS.leaseTime().plus(KitTime.SLACK), () -> lease.expiresAt()
                    .isAfter(firstExpiry));
            assertThat(master.waitCalls()).as("WAIT after the renewal").isGreaterThan(waitsBeforeRenewal);
            assertThat(lease.isValid()).isTrue();

            lease.close();
            assertThat(master.has(name)).isFalse();

            // A semaphore's permit likewise (RedisPermits): on the replica before acquire returns.
            try (Lease permit = client.semaphore(name, 2).acquire(KitTime.grant())) {
                assertThat(replica.sync().zcard(RedisPermits.keys(KEYS, name)[0]))
                        .as("the replica acknowledged the permit before acquire returned")
                        .isEqualTo(1);
                assertThat(permit.isValid()).isTrue();
            }
        }
    }

    @Test
    void aPausedReplicaMakesAcquireFailClearlyWithinTheTimeoutAndLeavesNothing() {
        try (RedisSentinelServers servers = RedisSentinelServers.startWithReplicas(1);
                LockClient client = Baton.connect(servers.uri("waitReplicas=1"), OPTIONS);
                Peek master = Peek.at(servers.master())) {
            String name = name("paused-replica");
            client.lock(name).acquire(KitTime.grant()).close(); // connected, scripts loaded
            RedisServer replica = servers.replicas().get(0);
            replica.pause();
            try {
                KitTime.Stopwatch refused = KitTime.stopwatch();
                // An acquire timeout far past the operation timeout's bound, even stretched.
                assertThatThrownBy(() -> client.lock(name).acquire(KitTime.COLD_START))
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("'" + name + "'")
                        .hasMessageContaining(client.backendName())
                        .hasMessageContaining("0 of the 1 replica asked for (waitReplicas=1)")
                        .hasMessageContaining("lower waitReplicas")
                        .hasMessageContaining("it was released");
                assertThat(refused.millis())
                        .as("bounded by the operation timeout, not the acquire timeout (%s)", refused)
                        .isLessThan(refused.allows(OPTIONS.operationTimeout().plus(KitTime.SLACK))
                                .toMillis());
                assertThat(master.has(name)).as("no key left behind").isFalse();
            } finally {
                replica.resume();
            }
            try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
                assertThat(lease.isValid())
                        .as("granted again once the replica is back")
                        .isTrue();
            }
        }
    }

    @Test
    void aKilledReplicaMakesTryAcquireFailAndLeavesNothing() {
        try (RedisSentinelServers servers = RedisSentinelServers.startWithReplicas(1);
                LockClient client = Baton.connect(servers.uri("waitReplicas=1"), OPTIONS);
                Peek master = Peek.at(servers.master())) {
            String name = name("killed-replica");
            servers.replicas().get(0).kill();
            assertThatThrownBy(() -> client.lock(name).tryAcquire())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("'" + name + "'")
                    .hasMessageContaining("0 of the 1 replica asked for");
            assertThat(master.has(name)).isFalse();
        }
    }

    @Test
    void askingForMoreReplicasThanThereAreFailsClearly() {
        try (RedisSentinelServers servers = RedisSentinelServers.startWithReplicas(1);
                LockClient client = Baton.connect(servers.uri("waitReplicas=2"), OPTIONS);
                Peek master = Peek.at(servers.master())) {
            String name = name("two-of-one");
            assertThatThrownBy(() -> client.lock(name).tryAcquire())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("1 of the 2 replicas asked for (waitReplicas=2)")
                    .hasMessageContaining("check that the master's replicas are up");
            assertThat(master.has(name)).isFalse();
            assertThatThrownBy(() -> client.semaphore(name, 3).tryAcquire())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("Baton semaphore '" + name + "'")
                    .hasMessageContaining("the permit does not count")
                    .hasMessageContaining("1 of the 2 replicas asked for (waitReplicas=2)")
                    .hasMessageContaining("it was released");
            assertThat(master.sync().exists(RedisPermits.keys(KEYS, name)[0]))
                    .as("no permit left behind")
                    .isZero();
        }
    }

    @Test
    void aLockHandedOverToAWaiterCountsOnlyAfterTheWaitersOwnWait() throws Exception {
        try (RedisSentinelServers servers = RedisSentinelServers.startWithReplicas(1);
                LockClient holder = Baton.connect(servers.uri("waitReplicas=1"), OPTIONS);
                LockClient waiter = Baton.connect(servers.uri("waitReplicas=1"), OPTIONS);
                Peek master = Peek.at(servers.master())) {
            String name = name("handed-over");
            Lease first = holder.lock(name).acquire(KitTime.grant());
            CompletableFuture<Lease> second =
                    CompletableFuture.supplyAsync(() -> waiter.lock(name).acquire(Duration.ofSeconds(20)));
            String queue = KEYS.keys(name)[3];
            Await.condition(
                    "the waiter to queue", KitTime.grant(), () -> master.sync().exists(queue) == 1);
            long waitsBefore = master.waitCalls();
            first.close();
            try (Lease handed = Await.result(second, KitTime.grant())) {
                assertThat(handed.fencingToken()).isGreaterThan(first.fencingToken());
                assertThat(master.waitCalls())
                        .as("the waiter's own WAIT confirmed the hand-over")
                        .isGreaterThan(waitsBefore);
            }
        }
    }

    @Test
    void aReconnectBetweenTheWriteAndWaitMakesTheWriteUnconfirmed() throws Exception {
        ClientResources resources = RedisResources.create();
        try (RedisServer server = RedisServer.startEmbedded();
                RedisNode node =
                        new RedisNode(RedisURI.create(server.uri()), resources, Duration.ofSeconds(1), false)) {
            RedisReplicaWait wait = new RedisReplicaWait(node, 1, Duration.ofSeconds(1));
            Await.result(
                    node.eval(RedisInspection.LOCK, ScriptOutputType.MULTI, KEYS.inspectKeys("x", null)),
                    KitTime.grant());
            Await.result(node.subscribe("some-channel"), KitTime.grant());
            assertThat(node.connectionChanges(null))
                    .as("neither the first connect nor the pub/sub connection counts")
                    .isZero();
            RedisReplicaWait.Mark mark = wait.beforeWrite(KEYS.keys("x")[0], "Baton lock 'x'", "test", "acquire");

            server.restart();
            Await.condition(
                    "the command connection to go down and come back",
                    KitTime.grant(),
                    () -> node.connectionChanges(null) >= 2);

            assertThat(wait.unconfirmed(mark, "the grant")).hasValueSatisfying(why -> assertThat(why)
                    .contains("re-established between the write and WAIT")
                    .contains("cannot vouch for the grant"));
        } finally {
            RedisResources.shutdown(resources);
        }
    }

    @Test
    void aConfirmedGrantSurvivesAFailover() {
        LockOptions longLease = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .operationTimeout(Duration.ofSeconds(1))
                .build();
        try (RedisSentinelServers servers = RedisSentinelServers.startWithReplicas(2);
                LockClient holder = Baton.connect(servers.uri("waitReplicas=1"), longLease)) {
            String name = name("failover");
            Lease lease = holder.lock(name).acquire(KitTime.grant());
            RedisServer promoted = servers.killMasterAndAwaitFailover();
            try (Peek newMaster = Peek.at(promoted);
                    LockClient other = Baton.connect(servers.uri("waitReplicas=1"), longLease)) {
                assertThat(newMaster.has(name))
                        .as("the grant reached a replica")
                        .isTrue();
                assertThat(other.lock(name).tryAcquire())
                        .as("still held after the failover")
                        .isEmpty();
            }
            lease.close();
        }
    }
}
