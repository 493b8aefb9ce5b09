package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.redis.RedisWaitReplicasTest.Peek;
import dev.baton.servers.RedisClusterServers;
import dev.baton.servers.RedisServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue #25 on Redis Cluster: a grant and each renewal count only once a replica of the lock's slot
 * master acknowledged them, by default whenever that master has one connected ({@code WAIT} on the
 * node connection to that master, right after the script); {@code waitReplicas=N} asks for N and
 * {@code waitReplicas=0} opts out. One cluster of three masters with a replica each for the class.
 */
@Timeout(120)
class RedisClusterWaitReplicasTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(2))
            .operationTimeout(Duration.ofSeconds(1))
            .build();
    private static final RedisKeys KEYS = new RedisKeys(RedisKeys.DEFAULT_PREFIX);

    private static RedisClusterServers cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterServers.startWithReplicas(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** One node of the cluster, asked directly (a replica in READONLY mode, so it answers for its master's slots). */
    private static int masterOf(String lockName) {
        return cluster.masters().indexOf(cluster.ownerOf(SlotHash.getSlot(KEYS.keys(lockName)[0])));
    }

    /** A fresh lock name whose slot master {@code index} owns. */
    private static String nameOn(int index, String what) {
        while (true) {
            String name = RedisWaitReplicasTest.name(what);
            if (masterOf(name) == index) {
                return name;
            }
        }
    }

    @Test
    void byDefaultAGrantAndItsRenewalsCountOnceTheSlotMastersReplicaHasThem() {
        String first = nameOn(0, "cluster-default");
        String second = nameOn(2, "cluster-default");
        try (LockClient client = Baton.connect(cluster.uri(), OPTIONS);
                Peek master0 = Peek.at(cluster.masters().get(0));
                Peek master2 = Peek.at(cluster.masters().get(2));
                Peek replica0 = Peek.replicaAt(cluster.replicas().get(0));
                Peek replica2 = Peek.replicaAt(cluster.replicas().get(2))) {
            long waits0 = master0.waitCalls();
            long waits2 = master2.waitCalls();
            Lease lease0 = client.lock(first).acquire(KitTime.grant());
            assertThat(master0.waitCalls())
                    .as("WAIT on the slot's master after the grant")
                    .isGreaterThan(waits0);
            assertThat(replica0.has(first))
                    .as("its replica acknowledged the grant before acquire returned")
                    .isTrue();
            Lease lease2 = client.lock(second).acquire(KitTime.grant());
            assertThat(master2.waitCalls()).isGreaterThan(waits2);
            assertThat(replica2.has(second)).isTrue();

            // One renewal round covers both locks, one call per slot: each followed by WAIT on its master.
            Instant expiry0 = lease0.expiresAt();
            Instant expiry2 = lease2.expiresAt();
            long renewWaits0 = master0.waitCalls();
            long renewWaits2 = master2.waitCalls();
            Await.condition(
                    "both renewed",
                    OPTIONS.leaseTime().plus(KitTime.SLACK),
                    () -> lease0.expiresAt().isAfter(expiry0)
                            && lease2.expiresAt().isAfter(expiry2));
            assertThat(master0.waitCalls())
                    .as("WAIT after the renewal on master 0")
                    .isGreaterThan(renewWaits0);
            assertThat(master2.waitCalls())
                    .as("WAIT after the renewal on master 2")
                    .isGreaterThan(renewWaits2);
            lease0.close();
            lease2.close();
        }
    }

    @Test
    void byDefaultAPausedReplicaMakesTheGrantFailAndLeavesNothing() {
        String name = nameOn(1, "cluster-paused-replica");
        try (LockClient client = Baton.connect(cluster.uri(), OPTIONS);
                Peek master = Peek.at(cluster.masters().get(1))) {
            client.lock(name).acquire(KitTime.grant()).close(); // connected, scripts loaded
            RedisServer replica = cluster.replicas().get(1);
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

    @Test
    void waitReplicasZeroOptsOut() {
        String name = nameOn(0, "cluster-opted-out");
        try (LockClient client = Baton.connect(cluster.uri() + "?waitReplicas=0", OPTIONS);
                Peek master = Peek.at(cluster.masters().get(0))) {
            long waitsBefore = master.waitCalls();
            try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
                assertThat(lease.isValid()).isTrue();
            }
            assertThat(master.waitCalls()).as("no WAIT with waitReplicas=0").isEqualTo(waitsBefore);
        }
    }

    @Test
    void waitReplicasTwoIsAskedOfTheSlotMaster() {
        String name = nameOn(2, "cluster-two");
        try (LockClient client = Baton.connect(cluster.uri() + "?waitReplicas=2", OPTIONS);
                Peek master = Peek.at(cluster.masters().get(2))) {
            assertThatThrownBy(() -> client.lock(name).tryAcquire())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("1 of the 2 replicas asked for (waitReplicas=2)")
                    .hasMessageContaining("it was released");
            assertThat(master.has(name)).as("no key left behind").isFalse();
        }
    }

    /**
     * WAIT counts one server-side connection's writes: a reconnect of the slot master's node
     * connection between a write and its WAIT spoils the WAIT; another master's does not.
     */
    @Test
    void aReconnectOfTheSlotMastersNodeConnectionSpoilsOnlyItsOwnWait() {
        ClientResources resources = RedisResources.create();
        List<RedisURI> seeds = cluster.masters().stream()
                .map(master -> RedisURI.create(master.uri()))
                .toList();
        try (RedisNode node = RedisNode.cluster(seeds, resources, Duration.ofSeconds(1), Duration.ofSeconds(30));
                Peek master0 = Peek.at(cluster.masters().get(0))) {
            RedisReplicaWait wait = new RedisReplicaWait(node, RedisReplicaWait.AUTO, Duration.ofSeconds(1));
            RedisReplicaWait.Mark onMaster0 =
                    wait.beforeWrite(KEYS.keys(nameOn(0, "reconnect"))[0], "Baton lock 'a'", "test", "acquire");
            RedisReplicaWait.Mark onMaster1 =
                    wait.beforeWrite(KEYS.keys(nameOn(1, "steady"))[0], "Baton lock 'b'", "test", "acquire");
            assertThat(onMaster0.via()).isNotNull();
            assertThat(onMaster0.via().connection()).isNotSameAs(onMaster1.via().connection());

            master0.sync().clientKill(KillArgs.Builder.typeNormal().skipme());
            Await.condition(
                    "the node connection to master 0 to go down and come back",
                    KitTime.grant(),
                    () -> node.connectionChanges(onMaster0.via()) >= 2);

            assertThat(wait.unconfirmed(onMaster0, "the grant"))
                    .hasValueSatisfying(why -> assertThat(why).contains("re-established between the write and WAIT"));
            assertThat(wait.connectionChangedSince(onMaster1)).isFalse();
            assertThat(wait.unconfirmed(onMaster1, "the grant")).isEmpty();
        } finally {
            RedisResources.shutdown(resources);
        }
    }

    @Test
    void byDefaultAClusterWithoutReplicasGrantsWithoutWait() {
        try (RedisClusterServers bare = RedisClusterServers.start(3);
                LockClient client = Baton.connect(bare.uri(), OPTIONS)) {
            String name = RedisWaitReplicasTest.name("cluster-no-replica");
            RedisServer owner = bare.ownerOf(SlotHash.getSlot(KEYS.keys(name)[0]));
            try (Peek master = Peek.at(owner)) {
                try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
                    assertThat(lease.isValid()).isTrue();
                }
                assertThat(master.waitCalls()).as("no WAIT without a replica").isZero();
            }
        }
    }
}
