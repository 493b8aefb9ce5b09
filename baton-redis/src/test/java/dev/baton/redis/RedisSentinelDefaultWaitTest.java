package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.redis.RedisWaitReplicasTest.Peek;
import dev.baton.servers.RedisSentinelServers;
import dev.baton.servers.RedisServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue #25: on Sentinel, without {@code waitReplicas}, a grant and each renewal count only once a
 * replica acknowledged them whenever the master has one connected; with none connected the grant is
 * not refused; {@code waitReplicas=0} opts out.
 */
@Timeout(60)
class RedisSentinelDefaultWaitTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(2))
            .operationTimeout(Duration.ofSeconds(1))
            .build();

    private static long connectedReplicas(Peek master) {
        return RedisNode.connectedReplicas(master.sync().info("replication"));
    }

    @Test
    void byDefaultAGrantAndItsRenewalsCountOnceAConnectedReplicaHasThem() {
        try (RedisSentinelServers servers = RedisSentinelServers.startWithReplicas(1);
                LockClient client = Baton.connect(servers.uri(), OPTIONS);
                Peek master = Peek.at(servers.master());
                Peek replica = Peek.at(servers.replicas().get(0))) {
            Await.condition("the replica to connect", KitTime.grant(), () -> connectedReplicas(master) == 1);
            String name = RedisWaitReplicasTest.name("default-confirmed");
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
            lease.close();
        }
    }

    @Test
    void byDefaultAReplicaThatDoesNotAcknowledgeMakesTheGrantFail() {
        try (RedisSentinelServers servers = RedisSentinelServers.startWithReplicas(1);
                LockClient client = Baton.connect(servers.uri(), OPTIONS);
                Peek master = Peek.at(servers.master())) {
            String name = RedisWaitReplicasTest.name("default-paused-replica");
            Await.condition("the replica to connect", KitTime.grant(), () -> connectedReplicas(master) == 1);
            client.lock(name).acquire(KitTime.grant()).close(); // connected, scripts loaded
            RedisServer replica = servers.replicas().get(0);
            replica.pause();
            try {
                assertThatThrownBy(() -> client.lock(name).tryAcquire())
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("0 of the 1 replica asked for (the default while the master has a"
                                + " replica connected; waitReplicas=0 turns it off)")
                        .hasMessageContaining("it was released");
                assertThat(master.has(name)).as("no key left behind").isFalse();
            } finally {
                replica.resume();
            }
        }
    }

    /**
     * A replica that acknowledges the grant only after its key expired on the master: the grant is
     * not handed to the caller (a dead lease: another owner may already hold its lock).
     */
    @Test
    void aGrantAcknowledgedAfterItsLeaseRanOutIsNotReturned() throws Exception {
        LockOptions shortLease = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(1))
                .operationTimeout(Duration.ofSeconds(8)) // WAIT may last 6 s: longer than the lease
                .build();
        try (RedisSentinelServers servers = RedisSentinelServers.startWithReplicas(1);
                LockClient client = Baton.connect(servers.uri(), shortLease);
                Peek master = Peek.at(servers.master())) {
            Await.condition("the replica to connect", KitTime.grant(), () -> connectedReplicas(master) == 1);
            String name = RedisWaitReplicasTest.name("late-ack");
            client.lock(name + "-warm").acquire(KitTime.grant()).close(); // connected, scripts loaded
            RedisServer replica = servers.replicas().get(0);
            replica.pause();
            CompletableFuture<Optional<Lease>> attempt;
            try {
                attempt = CompletableFuture.supplyAsync(() -> client.lock(name).tryAcquire());
                Await.condition("the grant written on the master", KitTime.grant(), () -> master.has(name));
                Await.condition(
                        "the grant's key to expire on the master while WAIT waits",
                        shortLease.leaseTime().plus(KitTime.SLACK),
                        () -> !master.has(name));
            } finally {
                replica.resume(); // the replica catches up and acknowledges: too late
            }
            Optional<Lease> result = Await.result(attempt, KitTime.grant(shortLease.operationTimeout()));
            assertThat(result)
                    .as("no lease whose key already expired on the master (%s)", result)
                    .isEmpty();
            assertThat(master.has(name)).as("nothing left behind").isFalse();
            try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
                assertThat(lease.isValid())
                        .as("a later attempt, acknowledged in time, gets a live lease")
                        .isTrue();
            }
        }
    }

    @Test
    void byDefaultAMasterWithNoReplicaConnectedStillGrants() {
        try (RedisSentinelServers servers = RedisSentinelServers.startWithReplicas(1);
                LockClient client = Baton.connect(servers.uri(), OPTIONS);
                Peek master = Peek.at(servers.master())) {
            servers.replicas().get(0).kill();
            Await.condition(
                    "the master to see its replica gone", KitTime.grant(), () -> connectedReplicas(master) == 0);
            String name = RedisWaitReplicasTest.name("default-no-replica");
            long waitsBefore = master.waitCalls();
            try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
                assertThat(lease.isValid()).isTrue();
                assertThat(master.waitCalls()).as("no WAIT without a replica").isEqualTo(waitsBefore);
            }
        }
    }

    @Test
    void waitReplicasZeroOptsOut() {
        try (RedisSentinelServers servers = RedisSentinelServers.startWithReplicas(1);
                LockClient client = Baton.connect(servers.uri("waitReplicas=0"), OPTIONS);
                Peek master = Peek.at(servers.master())) {
            Await.condition("the replica to connect", KitTime.grant(), () -> connectedReplicas(master) == 1);
            String name = RedisWaitReplicasTest.name("opted-out");
            long waitsBefore = master.waitCalls();
            try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
                assertThat(lease.isValid()).isTrue();
            }
            assertThat(master.waitCalls()).as("no WAIT with waitReplicas=0").isEqualTo(waitsBefore);
        }
    }
}
