package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.servers.ZooKeeperServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import dev.baton.testsupport.TcpProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Faults on a 3-server ensemble: a dead server, a holder cut off, many timed-out waiters. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ZooKeeperFaultTest {
    private static final Duration SESSION = Duration.ofSeconds(3);
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(2))
            .operationTimeout(Duration.ofSeconds(3))
            .build();
    private static ZooKeeperServer ensemble;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startEnsemble() {
        ensemble = ZooKeeperServer.startEnsemble(3);
    }

    @AfterAll
    static void stopEnsemble() {
        ensemble.close();
    }

    @AfterEach
    void closeResources() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    private LockClient client(String servers, String params) {
        return track(Baton.connect(
                "zookeeper://" + servers + "/faults?sessionTimeout=" + SESSION.toMillis() + "ms" + params, OPTIONS));
    }

    private static String name() {
        return "fault-" + UUID.randomUUID();
    }

    @Test
    void withOneOfThreeServersKilledLocksKeepWorking() {
        String name = name();
        ensemble.kill(0);
        try {
            LockClient one = client(ensemble.connectString(), "");
            LockClient two = client(ensemble.connectString(), "");
            long last = 0;
            for (int i = 0; i < 20; i++) {
                // A client that tried the killed server first moves to another within its session.
                Duration moved = KitTime.bound(SESSION.plus(OPTIONS.operationTimeout()));
                try (Lease lease = (i % 2 == 0 ? one : two).lock(name).acquire(moved)) {
                    assertThat(lease.fencingToken()).isGreaterThan(last);
                    last = lease.fencingToken();
                    assertThat((i % 2 == 0 ? two : one).lock(name).tryAcquire()).isEmpty();
                }
            }
        } finally {
            ensemble.restart(0);
        }
    }

    @Test
    void holderCutOffPastTheSessionTimeoutIsToldAndAnotherClientGetsTheLock() throws Exception {
        String name = name();
        InetSocketAddress target = ensemble.address(1);
        TcpProxy proxy = track(TcpProxy.start(target));
        // onSuspended=wait: a disconnection alone is not loss; the session expiring is.
        LockClient cutOff =
                client(proxy.address().getHostString() + ":" + proxy.address().getPort(), "&onSuspended=wait");
        LockClient other = client(ensemble.connectString(), "");
        // Longer than the session, so that only the session's end (not the lease) can cause the loss.
        LockOptions longLease = OPTIONS.withLeaseTime(Duration.ofSeconds(6));
        Lease held = cutOff.lock(name, longLease).acquire(KitTime.grant(OPTIONS.operationTimeout()));
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        held.onLost(lost::complete);

        long cutAt = System.nanoTime();
        proxy.cut();
        // The session's expiry, the waiter's watch and its next request, then a grant.
        Duration freed = KitTime.bound(SESSION.plus(OPTIONS.operationTimeout()).plus(KitTime.TAKE_OVER));
        try (Lease next = other.lock(name).acquire(freed)) {
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt))
                    .as("the lock frees when the holder's session expires, not before")
                    .isGreaterThanOrEqualTo(SESSION.toMillis() / 2);
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            // The holder learns it lost the lock at its next renewal (a third of its lease time), and
            // at the latest when the validity of its last renewal before the cut ends.
            assertThat(Await.result(lost, longLease.leaseTime().plus(KitTime.SLACK)))
                    .hasMessageContaining(name);
            assertThat(held.isValid()).isFalse();
            assertThatThrownBy(held::checkValid).isInstanceOf(LockLostException.class);
        }
        held.close();
    }

    @Test
    void aShortDisconnectionWithOnSuspendedWaitKeepsTheLease() throws Exception {
        String name = name();
        TcpProxy proxy = track(TcpProxy.start(ensemble.address(2)));
        LockClient holder =
                client(proxy.address().getHostString() + ":" + proxy.address().getPort(), "&onSuspended=wait");
        LockOptions longLease = OPTIONS.withLeaseTime(Duration.ofSeconds(30));
        try (Lease held = holder.lock(name, longLease).acquire(KitTime.grant(OPTIONS.operationTimeout()))) {
            proxy.cut();
            proxy.restore();
            // Prove the session survived: the same client takes another lock, and the held one is
            // still excluding others.
            // (With the long lease: the acquisition may wait for the reconnection longer than the
            // 2 s default lease, and the core starts a lease's validity when the request was sent.)
            Duration reconnected = KitTime.bound(SESSION.plus(OPTIONS.operationTimeout()));
            try (Lease second = holder.lock(name + "-2", longLease).acquire(reconnected)) {
                assertThat(second.isValid()).isTrue();
            }
            assertThat(client(ensemble.connectString(), "").lock(name).tryAcquire())
                    .isEmpty();
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void noLockNodeIsLeftAfterAThousandTimedOutWaits() throws Exception {
        String name = name();
        LockClient holderClient = client(ensemble.connectString(), "");
        LockClient waiterClient = client(ensemble.connectString(), "");
        DistributedLock waiter = waiterClient.lock(name);
        CuratorFramework curator = track(CuratorFrameworkFactory.builder()
                .connectString(ensemble.connectString())
                .namespace("faults")
                .retryPolicy(new ExponentialBackoffRetry(50, 5))
                .build());
        curator.start();
        String path = "/baton/locks/" + name;
        try (Lease held = holderClient.lock(name).acquire(KitTime.grant(OPTIONS.operationTimeout()))) {
            for (int i = 0; i < 1000; i++) {
                assertThatThrownBy(() -> waiter.acquire(Duration.ofMillis(1))).isInstanceOf(LockTimeoutException.class);
            }
            assertThat(childrenAfterSync(curator, path))
                    .as("only the holder's node")
                    .hasSize(1);
        }
        assertThat(childrenAfterSync(curator, path)).isEmpty();
    }

    /**
     * The children of {@code path} once Curator's member has caught up with the leader. Curator may
     * be connected to another member than the Baton clients, and ZooKeeper orders what each session
     * sees, not what two sessions see: a follower can answer a read before it applied a delete the
     * leader committed for another session, and list a node its holder already released. A sync, then
     * the read on the same session, sees every write committed before it.
     */
    private static List<String> childrenAfterSync(CuratorFramework curator, String path) throws Exception {
        CountDownLatch synced = new CountDownLatch(1);
        curator.sync().inBackground((client, event) -> synced.countDown()).forPath(path);
        Await.condition("sync of " + path, KitTime.grant(), () -> synced.getCount() == 0);
        return curator.getChildren().forPath(path);
    }
}
