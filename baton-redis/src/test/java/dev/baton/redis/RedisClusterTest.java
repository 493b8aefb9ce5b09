package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.servers.RedisClusterServers;
import dev.baton.servers.RedisServer;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Routing, notifications and failures on a real three-master Redis Cluster. */
@Timeout(120)
class RedisClusterTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(5))
            .operationTimeout(KitTime.operationTimeout())
            .build();

    private static RedisClusterServers cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterServers.start(3);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    private static int slotOf(RedisKeys keys, String name) {
        return SlotHash.getSlot(keys.keys(name)[0]);
    }

    /** The lock keys with {@code prefix} that {@code master} holds, read from the master itself. */
    private static List<String> lockKeysOn(RedisServer master, String prefix) {
        return admin(master, conn -> conn.sync().keys(prefix + "*:lock"));
    }

    /**
     * Waits until a node of the cluster has a subscriber on a channel of {@code name}. Subscribing
     * waits at most the operation timeout for the first node to confirm, then lets polls stand in;
     * these tests check the messages themselves, so they wait for the confirmation however long a
     * busy machine takes.
     */
    private static void awaitSubscribed(String name) {
        Await.condition(
                "a node subscribed to the release channel of " + name,
                KitTime.bound(KitTime.COLD_START),
                () -> cluster.nodes().stream()
                        .anyMatch(node -> !admin(node, conn -> conn.sync().pubsubChannels("*" + name + "*"))
                                .isEmpty()));
    }

    @Test
    void locksWhoseNamesMapToDifferentSlotsLiveOnDifferentMastersAndAllWork() {
        String prefix = "spread-" + UUID.randomUUID() + ":";
        RedisKeys keys = new RedisKeys(prefix);
        try (LockClient client = Baton.connect(cluster.uri() + "/?prefix=" + prefix, OPTIONS);
                LockClient other = Baton.connect(cluster.uri() + "?prefix=" + prefix, OPTIONS);
                LockBackend inspector =
                        new RedisLockBackendProvider().create(cluster.uri() + "?prefix=" + prefix, OPTIONS)) {
            Map<String, Lease> leases = new LinkedHashMap<>();
            for (int i = 0; i < 30; i++) {
                String name = "spread-" + i;
                leases.put(name, client.lock(name).acquire(KitTime.grant()));
            }
            Map<RedisServer, List<String>> expected = new HashMap<>();
            for (String name : leases.keySet()) {
                expected.computeIfAbsent(cluster.ownerOf(slotOf(keys, name)), m -> new ArrayList<>())
                        .add(keys.keys(name)[0]);
            }
            assertThat(expected)
                    .as("30 names hash to slots of all three masters")
                    .hasSize(3);
            for (RedisServer master : cluster.masters()) {
                assertThat(lockKeysOn(master, prefix))
                        .as("the lock keys on the master on port %d are exactly those of its slots", master.port())
                        .containsExactlyInAnyOrderElementsOf(expected.get(master));
            }
            assertThat(inspector.list(""))
                    .as("the scan walks every master")
                    .extracting(LockInfo::name)
                    .containsExactlyElementsOf(leases.keySet().stream().sorted().toList());
            assertThat(inspector.list("spread-2"))
                    .extracting(LockInfo::name)
                    .containsExactly(
                            "spread-2",
                            "spread-20",
                            "spread-21",
                            "spread-22",
                            "spread-23",
                            "spread-24",
                            "spread-25",
                            "spread-26",
                            "spread-27",
                            "spread-28",
                            "spread-29");

            for (Map.Entry<String, Lease> held : leases.entrySet()) {
                assertThat(other.lock(held.getKey()).tryAcquire())
                        .as("another client is excluded from %s", held.getKey())
                        .isEmpty();
                Optional<LockInfo> info = inspector.inspect(held.getKey());
                assertThat(info).isPresent();
                assertThat(info.get().fencingToken()).isEqualTo(held.getValue().fencingToken());
                held.getValue().close();
            }
            for (RedisServer master : cluster.masters()) {
                assertThat(lockKeysOn(master, prefix)).as("released everywhere").isEmpty();
            }
            try (Lease again = other.lock("spread-7").acquire(KitTime.grant())) {
                assertThat(again.fencingToken())
                        .isGreaterThan(leases.get("spread-7").fencingToken());
            }
        }
    }

    /**
     * A waiter's client subscribes on one node of the cluster; a release on any master reaches it
     * because Redis Cluster forwards PUBLISH to every node. Checked below the core, where no poll
     * can stand in for a missing message.
     */
    @Test
    void aReleaseOnAnyMasterWakesSubscribersThroughClusterPubSub() throws Exception {
        RedisLockBackendProvider provider = new RedisLockBackendProvider();
        RedisKeys keys = new RedisKeys(RedisKeys.DEFAULT_PREFIX);
        try (LockBackend waiting = provider.create(cluster.uri(), OPTIONS);
                LockBackend holding = provider.create(cluster.uri(), OPTIONS)) {
            // A fair exclusive waiter waits in the hand-over line; a reader's wait listens on the same
            // channel, which an exclusive release publishes on when the lock was wanted.
            ReleaseNotifications notifications = waiting.waiting(LockKind.READ).notifications();
            assertThat(notifications.supported()).isTrue();
            for (RedisServer master : cluster.masters()) {
                String name;
                do {
                    name = "notify-" + UUID.randomUUID();
                } while (cluster.ownerOf(slotOf(keys, name)) != master);
                LockRequest request = LockRequest.builder(
                                name, UUID.randomUUID().toString(), LockKind.MUTEX, Duration.ofSeconds(5))
                        .build();
                var grant = holding.tryAcquire(request).orElseThrow();
                // As the core does: an attempt that fails, then the wait. The failed attempt marks
                // the lock as wanted, which is what makes its release publish.
                LockRequest waiter = LockRequest.builder(
                                name, UUID.randomUUID().toString(), LockKind.MUTEX, Duration.ofSeconds(5))
                        .build();
                assertThat(waiting.tryAcquire(waiter)).isEmpty();
                CountDownLatch released = new CountDownLatch(1);
                try (ReleaseNotifications.Subscription subscription =
                        notifications.subscribe(name, released::countDown)) {
                    awaitSubscribed(name);
                    assertThat(holding.release(grant)).isTrue();
                    Await.condition(
                            "the release on the master on port " + master.port() + " to be heard",
                            KitTime.grant(),
                            () -> released.getCount() == 0);
                }
            }
        }
    }

    /**
     * Semaphores whose names live on each of the three masters: the bound holds per name, one
     * renewal batch across slots renews locks and permits together, and a permit's release on any
     * master wakes a subscriber of that semaphore through cluster pub/sub.
     */
    @Test
    void semaphoresOnEveryMasterBoundRenewAlongsideLocksAndWakeWaiters() throws Exception {
        RedisLockBackendProvider provider = new RedisLockBackendProvider();
        RedisKeys keys = new RedisKeys(RedisKeys.DEFAULT_PREFIX);
        Duration lease = Duration.ofSeconds(5);
        try (LockBackend waiting = provider.create(cluster.uri(), OPTIONS);
                LockBackend holding = provider.create(cluster.uri(), OPTIONS)) {
            List<Grant> held = new ArrayList<>();
            for (RedisServer master : cluster.masters()) {
                String name;
                do {
                    name = "sem-" + UUID.randomUUID();
                } while (cluster.ownerOf(slotOf(keys, name)) != master);
                Grant first = holding.tryAcquire(permit(name)).orElseThrow();
                Grant second = holding.tryAcquire(permit(name)).orElseThrow();
                held.add(first);
                held.add(holding.tryAcquire(LockRequest.builder(name, owner(), LockKind.MUTEX, lease)
                                .build())
                        .orElseThrow());
                String holders = RedisPermits.keys(keys, name)[0];
                assertThat((long) admin(master, conn -> conn.sync().zcard(holders)))
                        .as("the permits live on the master of the name's slot (port %d)", master.port())
                        .isEqualTo(2);

                LockRequest refused = permit(name);
                assertThat(waiting.tryAcquire(refused))
                        .as("two permits, both held")
                        .isEmpty();
                CountDownLatch released = new CountDownLatch(1);
                try (ReleaseNotifications.Subscription subscription = waiting.waiting(LockKind.PERMIT)
                        .notifications()
                        .subscribe(refused.name(), released::countDown)) {
                    awaitSubscribed(refused.name());
                    assertThat(holding.release(second)).isTrue();
                    Await.condition(
                            "a permit's release on the master on port " + master.port() + " to be heard",
                            KitTime.grant(),
                            () -> released.getCount() == 0);
                }
                Grant taken = waiting.tryAcquire(refused).orElseThrow();
                assertThat(taken.fencingToken()).isGreaterThan(second.fencingToken());
                assertThat(waiting.release(taken)).isTrue();
            }

            List<Optional<Grant>> renewed = holding.renewAll(held, Duration.ofSeconds(10));
            assertThat(renewed).hasSize(6).allSatisfy(grant -> assertThat(grant).isPresent());
            for (Optional<Grant> grant : renewed) {
                assertThat(holding.release(grant.orElseThrow())).isTrue();
            }
        }
    }

    private static LockRequest permit(String name) {
        return LockRequest.builder(name, owner(), LockKind.PERMIT, Duration.ofSeconds(5))
                .permits(2)
                .build();
    }

    private static String owner() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    @Test
    void wrongPasswordGivesAClearError() {
        RedisServer first = cluster.masters().get(0);
        try (LockClient wrong =
                Baton.connect("redis-cluster://baton:wrong@" + first.host() + ":" + first.port(), OPTIONS)) {
            assertThatThrownBy(() -> wrong.lock("guarded").acquire(KitTime.grant()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("guarded")
                    .hasMessageContaining(wrong.backendName())
                    .hasMessageContaining("authentication failed")
                    .hasMessageContaining("password")
                    .hasMessageNotContaining("wrong@");
        }
    }

    @Test
    void unreachableSeedsFailWithinTheOperationTimeout() throws Exception {
        int closedA;
        int closedB;
        try (ServerSocket a = new ServerSocket(0);
                ServerSocket b = new ServerSocket(0)) {
            closedA = a.getLocalPort();
            closedB = b.getLocalPort();
        }
        try (LockClient nowhere =
                Baton.connect("redis-cluster://127.0.0.1:" + closedA + ",127.0.0.1:" + closedB, OPTIONS)) {
            KitTime.Stopwatch failing = KitTime.stopwatch();
            assertThatThrownBy(() -> nowhere.lock("lonely").acquire(Duration.ofSeconds(30)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("lonely")
                    .hasMessageContaining(nowhere.backendName())
                    .hasMessageContaining("seed");
            assertThat(failing.millis())
                    .as("%s", failing)
                    .isLessThan(failing.allows(OPTIONS.operationTimeout().plus(KitTime.SLACK))
                            .toMillis());
        }
    }

    @Test
    void aSingleServerIsNotTakenForACluster() {
        try (RedisServer single = RedisServer.startEmbedded();
                LockClient client = Baton.connect("redis-cluster://" + single.host() + ":" + single.port(), OPTIONS)) {
            assertThatThrownBy(() -> client.lock("standalone").acquire(KitTime.grant()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("standalone")
                    .hasMessageContaining("redis://");
        }
    }

    /**
     * A slot moves to another master after the client read the topology: the old owner answers
     * MOVED, the client follows it and the lock is taken on the new owner.
     */
    @Test
    void aClientFollowsASlotThatMovedToAnotherMaster() {
        RedisServer from = cluster.masters().get(0);
        RedisServer to = cluster.masters().get(1);
        RedisKeys keys = new RedisKeys(RedisKeys.DEFAULT_PREFIX);
        String name;
        do {
            name = "moving-" + UUID.randomUUID();
        } while (cluster.ownerOf(slotOf(keys, name)) != from);
        int slot = slotOf(keys, name);
        try (LockClient client = Baton.connect(cluster.uri(), OPTIONS)) {
            client.lock("topology-" + UUID.randomUUID())
                    .acquire(KitTime.grant())
                    .close(); // the client now knows the topology
            assignSlot(slot, to);
            try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
                assertThat(lease.isValid()).isTrue();
                assertThat(lockKeysOn(to, RedisKeys.DEFAULT_PREFIX)).contains(keys.keys(name)[0]);
                assertThat(lockKeysOn(from, RedisKeys.DEFAULT_PREFIX)).doesNotContain(keys.keys(name)[0]);
            }
        } finally {
            // Give the (now key-less) slot back so that ownerOf stays true for the other tests.
            deleteKeys(to, keys.keys(name));
            assignSlot(slot, from);
        }
    }

    /** CLUSTER SETSLOT slot NODE owner on every master, new owner first; the slot must hold no keys. */
    private static void assignSlot(int slot, RedisServer owner) {
        String ownerId = admin(owner, conn -> conn.sync().clusterMyId());
        admin(owner, conn -> conn.sync().clusterSetSlotNode(slot, ownerId));
        for (RedisServer master : cluster.masters()) {
            if (master != owner) {
                admin(master, conn -> conn.sync().clusterSetSlotNode(slot, ownerId));
            }
        }
    }

    private static void deleteKeys(RedisServer master, String[] keys) {
        admin(master, conn -> conn.sync().del(keys));
    }

    private static <T> T admin(
            RedisServer master, java.util.function.Function<StatefulRedisConnection<String, String>, T> call) {
        RedisClient client = RedisClient.create(master.uri());
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            return call.apply(conn);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @Test
    void aPlainClientPointedAtAClusterNodeIsToldToUseRedisCluster() {
        RedisServer first = cluster.masters().get(0);
        RedisKeys keys = new RedisKeys(RedisKeys.DEFAULT_PREFIX);
        String name;
        do {
            name = "elsewhere-" + UUID.randomUUID();
        } while (cluster.ownerOf(slotOf(keys, name)) == first);
        String elsewhere = name;
        try (LockClient plain = Baton.connect(first.uri(), OPTIONS)) {
            assertThatThrownBy(() -> plain.lock(elsewhere).acquire(KitTime.grant()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(elsewhere)
                    .hasMessageContaining("MOVED")
                    .hasMessageContaining("redis-cluster://");
        }
    }

    /** A cluster missing a slot refuses every command (full coverage required) until the slot is back. */
    @Test
    void clusterDownGivesAClearErrorAndTheClientRecovers() {
        try (RedisClusterServers small = RedisClusterServers.start(1);
                LockClient client = Baton.connect(small.uri(), OPTIONS)) {
            RedisServer only = small.masters().get(0);
            RedisClient admin = RedisClient.create(only.uri());
            try (StatefulRedisConnection<String, String> conn = admin.connect()) {
                client.lock("before").acquire(KitTime.grant()).close();
                conn.sync().clusterDelSlots(42);
                assertThatThrownBy(() -> client.lock("down").acquire(KitTime.grant()))
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("down")
                        .hasMessageContaining(client.backendName())
                        .hasMessageContaining("CLUSTERDOWN")
                        .hasMessageContaining("CLUSTER INFO");
                conn.sync().clusterAddSlots(42);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (true) {
                    try (Lease lease = client.lock("down").acquire(KitTime.grant())) {
                        assertThat(lease.isValid()).isTrue();
                        break;
                    } catch (LockUnavailableException stillDown) {
                        // A master that saw its cluster fail waits a moment before it serves again.
                        assertThat(System.nanoTime() - deadline)
                                .as("recovered within 20 s")
                                .isNegative();
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // poll interval only
                    }
                }
            } finally {
                admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }
}
