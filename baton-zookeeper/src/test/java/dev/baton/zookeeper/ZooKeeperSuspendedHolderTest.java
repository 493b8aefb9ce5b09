package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import dev.baton.testsupport.TcpProxy;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A holder whose connection was suspended (onSuspended=lose) and came back within its session: its
 * grant counts as lost, but its node stays until the holder can know, so that no other client is let
 * in beside a holder that still works (`baton check` found overlaps where the node was deleted at
 * RECONNECTED, before the holder's next renewal told it).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperSuspendedHolderTest extends OneServerTestBase {
    /** Long enough that the session survives the suspension: the client gives up after 2/3 of it. */
    private static final Duration SESSION = Duration.ofSeconds(6);

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(LEASE)
            .operationTimeout(Duration.ofSeconds(5))
            .build();

    private static LockRequest request(String name) {
        return LockRequest.builder(name, UUID.randomUUID().toString(), LockKind.MUTEX, LEASE)
                .build();
    }

    private ZooKeeperLockBackend backend(String connect, CuratorFramework curator) throws InterruptedException {
        curator.start();
        ZooKeeperLockBackend backend = new ZooKeeperLockBackend(
                ZooKeeperUri.parse("zookeeper://" + connect + "?sessionTimeout=" + SESSION.toMillis() + "ms"),
                OPTIONS,
                curator);
        resources.add(backend);
        assertThat(curator.blockUntilConnected((int) KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        return backend;
    }

    private static CuratorFramework curator(String connect) {
        return CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs((int) SESSION.toMillis())
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryNTimes(0, 0))
                .build();
    }

    @Test
    void aHolderSuspendedAndReconnectedKeepsItsNodeUntilItIsTold() throws Exception {
        String name = "suspended-" + UUID.randomUUID();
        TcpProxy link = TcpProxy.start(server.address(0));
        resources.add(link);
        String linked = link.address().getHostString() + ":" + link.address().getPort();
        CuratorFramework holderCurator = curator(linked);
        ZooKeeperLockBackend holder = backend(linked, holderCurator);
        ZooKeeperLockBackend next = backend(server.connectString(), curator(server.connectString()));
        // Added after the backend's own listener, so it runs after it (Curator calls them in order).
        CountDownLatch suspended = new CountDownLatch(1);
        CountDownLatch reconnected = new CountDownLatch(1);
        holderCurator.getConnectionStateListenable().addListener((client, state) -> {
            if (state == ConnectionState.SUSPENDED) {
                suspended.countDown();
            } else if (state == ConnectionState.RECONNECTED) {
                reconnected.countDown();
            }
        });
        Grant held = holder.tryAcquire(request(name)).orElseThrow();
        long session = holderCurator.getZookeeperClient().getZooKeeper().getSessionId();

        link.pause(); // the client hears nothing until it gives the connection up: SUSPENDED
        Await.condition(
                "the holder's connection to be SUSPENDED", KitTime.bound(SESSION), () -> suspended.getCount() == 0);
        link.resume();
        Await.condition(
                "the holder's connection to be RECONNECTED", KitTime.bound(SESSION), () -> reconnected.getCount() == 0);
        assertThat(holderCurator.getZookeeperClient().getZooKeeper().getSessionId())
                .as("the session survived the suspension (else the machine was too slow for this test)")
                .isEqualTo(session);

        // The holder has not been told yet (no renewal since): nobody else may take the lock. The
        // attempt waits in the queue for a while, as a waiter does when the node would go.
        assertThat(InLine.acquire(next, request(name), TimeUnit.SECONDS.toNanos(2)))
                .as("another client took the lock while its holder was not yet told it lost it")
                .isEmpty();

        assertThat(holder.renew(held, LEASE))
                .as("the holder is told at its next renewal")
                .isEmpty();
        holder.release(held);
        Grant taken = InLine.acquire(next, request(name), TimeUnit.SECONDS.toNanos(10))
                .orElseThrow();
        assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(next.release(taken)).isTrue();
    }
}
