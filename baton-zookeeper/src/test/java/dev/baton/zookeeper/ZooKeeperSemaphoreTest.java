package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockException;
import dev.baton.LockKind;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Semaphores on one ZooKeeper server through the public API: at most N holders, increasing tokens,
 * expiry of unrenewed permits, renewal, loss, the recorded count, and no node left behind by an
 * attempt that ends without a permit. The nodes are read with a plain Curator client.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperSemaphoreTest extends OneServerTestBase {
    private static final String ROOT = "/baton/locks";
    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(5);

    private LockClient client(LockOptions options) {
        LockClient client = Baton.connect("zookeeper://" + server.connectString(), options);
        resources.add(client);
        return client;
    }

    private LockClient client() {
        return client(LockOptions.builder()
                .leaseTime(LEASE)
                .operationTimeout(OPERATION_TIMEOUT)
                .build());
    }

    private CuratorFramework admin() throws InterruptedException {
        CuratorFramework admin = CuratorFrameworkFactory.newClient(server.connectString(), new RetryNTimes(3, 100));
        admin.start();
        resources.add(admin);
        assertThat(admin.blockUntilConnected((int) KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        return admin;
    }

    /** How long an acquisition that should simply succeed, or a node's change, may take. */
    private static Duration grant() {
        return KitTime.grant(OPERATION_TIMEOUT);
    }

    private static String fresh(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private static String path(String name) {
        return ZooKeeperPermits.semaphorePath(ROOT, name);
    }

    private static List<String> children(CuratorFramework admin, String path) throws Exception {
        return admin.checkExists().forPath(path) == null
                ? List.of()
                : admin.getChildren().forPath(path);
    }

    @Test
    void atMostNHoldersAcrossEightThreadsOnThreeClients() throws Exception {
        String name = fresh("sem");
        int permits = 4;
        List<DistributedSemaphore> semaphores = List.of(
                client().semaphore(name, permits),
                client().semaphore(name, permits),
                client().semaphore(name, permits));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Set<Long> tokens = ConcurrentHashMap.newKeySet();
        int rounds = 8;
        Duration run = KitTime.bulkWork(8 * rounds);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            DistributedSemaphore semaphore = semaphores.get(t % semaphores.size());
            done.add(threads.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    try (Lease lease = semaphore.acquire(run)) {
                        most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        assertThat(tokens.add(lease.fencingToken()))
                                .as("token %d given twice", lease.fencingToken())
                                .isTrue();
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // a hold, for overlap
                        inside.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> future : done) {
            Await.result(future, run);
        }
        assertThat(most.get()).as("holders at once").isBetween(1, permits);
        assertThat(tokens).hasSize(8 * rounds);
        CuratorFramework admin = admin();
        assertThat(children(admin, path(name) + "/leases")).as("leases left").isEmpty();
        assertThat(children(admin, path(name) + "/locks"))
                .as("mutex nodes left")
                .isEmpty();
    }

    @Test
    void nPermitsAreSharedAndTheNextWaitsWithIncreasingTokens() throws Exception {
        String name = fresh("share");
        List<DistributedSemaphore> semaphores = List.of(client().semaphore(name, 3), client().semaphore(name, 3));
        List<Lease> held = new ArrayList<>();
        long last = 0;
        for (int i = 0; i < 3; i++) {
            Lease lease = semaphores.get(i % 2).tryAcquire().orElseThrow();
            assertThat(lease.fencingToken()).isGreaterThan(last);
            last = lease.fencingToken();
            held.add(lease);
        }
        assertThat(semaphores.get(0).tryAcquire()).as("a fourth permit").isEmpty();
        assertThat(semaphores.get(1).tryAcquire()).as("a fourth permit").isEmpty();
        CuratorFramework admin = admin();
        assertThat(admin.getChildren().forPath(path(name) + "/leases"))
                .hasSize(3)
                .allSatisfy(node -> assertThat(node).matches("_c_[0-9a-f-]{36}-lease-\\d{10}"));
        assertThat(new String(admin.getData().forPath(path(name)), StandardCharsets.US_ASCII))
                .as("the recorded count")
                .isEqualTo("3");

        Future<Long> waiter = threads.submit(() -> {
            try (Lease lease = semaphores.get(1).acquire(grant())) {
                return lease.fencingToken();
            }
        });
        Await.condition("the waiter holds the mutex", grant(), () -> childCount(admin, path(name) + "/locks") == 1);
        held.remove(1).close();
        assertThat(Await.result(waiter, KitTime.grant())).isGreaterThan(last);
        held.forEach(Lease::close);
        assertThat(semaphores.get(0).tryAcquire().orElseThrow().fencingToken()).isGreaterThan(last);
    }

    private static int childCount(CuratorFramework admin, String path) {
        try {
            return children(admin, path).size();
        } catch (Exception e) {
            throw new AssertionError("listing " + path, e);
        }
    }

    @Test
    void aPermitNotRenewedComesBackAfterItsLease() throws Exception {
        String name = fresh("expiry");
        LockClient lazy = client(LockOptions.builder()
                .leaseTime(Duration.ofMillis(500))
                .autoRenew(false)
                .operationTimeout(OPERATION_TIMEOUT)
                .build());
        Lease abandoned = lazy.semaphore(name, 1).acquire(grant());
        DistributedSemaphore other = client().semaphore(name, 1);
        assertThat(other.tryAcquire()).isEmpty();
        try (Lease next = other.acquire(grant())) {
            assertThat(next.fencingToken()).isGreaterThan(abandoned.fencingToken());
            assertThat(abandoned.isValid()).isFalse();
        }
    }

    @Test
    void renewalKeepsAPermitPastThreeLeaseTimes() throws Exception {
        String name = fresh("renew");
        Lease lease = client().semaphore(name, 1).acquire(grant());
        DistributedSemaphore other = client().semaphore(name, 1);
        long until = System.nanoTime() + LEASE.multipliedBy(3).plusMillis(500).toNanos();
        while (System.nanoTime() - until < 0) {
            assertThat(lease.isValid()).isTrue();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        lease.checkValid();
        assertThat(other.tryAcquire()).as("the permit is still held").isEmpty();
        lease.close();
        other.tryAcquire().orElseThrow().close();
    }

    @Test
    void aDeletedLeaseNodeIsReportedLost() throws Exception {
        String name = fresh("lost");
        Lease lease = client().semaphore(name, 2).acquire(grant());
        AtomicReference<LockLostException> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        CuratorFramework admin = admin();
        String node = admin.getChildren().forPath(path(name) + "/leases").get(0);
        admin.delete().forPath(path(name) + "/leases/" + node);
        // At the next renewal, a third of the lease time away, and never past the lease's validity.
        Await.condition("the loss reported", LEASE.plus(KitTime.SLACK), () -> lost.get() != null);
        assertThat(lease.isValid()).isFalse();
        assertThat(lost.get()).hasMessageContaining(name);
    }

    @Test
    void anotherCountFailsClearlyAndLeavesNothing() throws Exception {
        String name = fresh("count");
        LockClient client = client();
        try (Lease held = client.semaphore(name, 3).acquire(grant())) {
            assertThatThrownBy(() -> client().semaphore(name, 4).tryAcquire())
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("Baton semaphore '" + name + "'")
                    .hasMessageContaining("zookeeper")
                    .hasMessageContaining("asked for 4 permits")
                    .hasMessageContaining("has 3")
                    .hasMessageContaining("same number of permits");
            CuratorFramework admin = admin();
            assertThat(children(admin, path(name) + "/locks"))
                    .as("mutex nodes left")
                    .isEmpty();
            assertThat(children(admin, path(name) + "/leases")).hasSize(1);
            assertThat(client.semaphore(name, 3).tryAcquire()).isPresent();
        }
    }

    /** Behind a waiter that holds the mutex, another count fails at once, not after the wait. */
    @Test
    void anotherCountFailsBeforeWaitingInTheQueue() throws Exception {
        String name = fresh("count-queued");
        Lease held = client().semaphore(name, 1).acquire(grant());
        Future<Lease> waiter = threads.submit(() -> client().semaphore(name, 1).acquire(grant()));
        CuratorFramework admin = admin();
        Await.condition("a lease node waiting", grant(), () -> childCount(admin, path(name) + "/leases") == 2);
        assertThatThrownBy(() -> client().semaphore(name, 2).acquire(grant()))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("asked for 2 permits, but the semaphore has 1");
        assertThat(childCount(admin, path(name) + "/locks"))
                .as("the waiter's mutex node only")
                .isEqualTo(1);
        held.close();
        Await.result(waiter, KitTime.grant()).close();
    }

    @Test
    void waitersThatTimeOutOrAreInterruptedLeaveNoNode() throws Exception {
        String name = fresh("timeout");
        Lease held = client().semaphore(name, 1).acquire(grant());
        CuratorFramework admin = admin();
        // Two waiters: one holds the mutex with a lease node waiting for a count of 1, the other
        // waits in the mutex queue behind it. Both time out.
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> timedOut = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            DistributedSemaphore semaphore = client().semaphore(name, 1);
            timedOut.add(threads.submit(() -> {
                start.await();
                return semaphore.acquire(Duration.ofMillis(300));
            }));
        }
        start.countDown();
        for (Future<?> waiter : timedOut) {
            // Its 300 ms, then the removal of its nodes.
            assertThatThrownBy(() -> Await.result(waiter, grant().plusMillis(300)))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LockTimeoutException.class);
        }
        assertThat(children(admin, path(name) + "/locks"))
                .as("mutex nodes left")
                .isEmpty();
        assertThat(children(admin, path(name) + "/leases")).as("lease nodes").hasSize(1);

        // Interrupted while holding the mutex and waiting for a lease, and while in the mutex queue.
        List<Future<?>> interrupted = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            DistributedSemaphore semaphore = client().semaphore(name, 1);
            interrupted.add(threads.submit(() -> semaphore.acquire()));
            int queued = i + 1;
            Await.condition(
                    "waiter " + queued + " queued", grant(), () -> childCount(admin, path(name) + "/locks") == queued);
        }
        Await.condition("a lease node waiting", grant(), () -> childCount(admin, path(name) + "/leases") == 2);
        for (Future<?> waiter : interrupted) {
            waiter.cancel(true);
        }
        Await.condition(
                "no waiter's node left",
                grant(),
                () -> childCount(admin, path(name) + "/locks") == 0 && childCount(admin, path(name) + "/leases") == 1);
        held.close();
        client().semaphore(name, 1).tryAcquire().orElseThrow().close();
    }

    @Test
    void aClosedClientFailsItsWaiter() throws Exception {
        String name = fresh("close");
        Lease held = client().semaphore(name, 1).acquire(grant());
        LockClient closing = client();
        Future<Lease> waiter = threads.submit(() -> closing.semaphore(name, 1).acquire(grant()));
        CuratorFramework admin = admin();
        Await.condition("a lease node waiting", grant(), () -> childCount(admin, path(name) + "/leases") == 2);
        closing.close();
        assertThatThrownBy(() -> Await.result(waiter, KitTime.CLOSE))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LockException.class);
        held.close();
        client().semaphore(name, 1).tryAcquire().orElseThrow().close();
    }

    @Test
    void aSemaphoreAndALockOfOneNameAreIndependent() throws Exception {
        String name = fresh("apart");
        LockClient client = client();
        try (Lease lock = client.lock(name).acquire(grant());
                Lease permit = client().semaphore(name, 1).acquire(grant())) {
            assertThat(client().lock(name).tryAcquire()).isEmpty();
            assertThat(client().semaphore(name, 1).tryAcquire()).isEmpty();
        }
    }

    /** Through the SPI: one renewAll call with a lock grant and a permit grant renews both. */
    @Test
    void oneRenewalBatchRenewsLocksAndPermitsTogether() throws Exception {
        LockOptions options = LockOptions.builder()
                .leaseTime(LEASE)
                .operationTimeout(OPERATION_TIMEOUT)
                .build();
        LockBackend backend = Baton.backend("zookeeper://" + server.connectString(), options);
        resources.add(backend);
        String name = fresh("mixed");
        Duration lease = Duration.ofMillis(600);
        Grant lock = backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.MUTEX, lease)
                        .build())
                .orElseThrow();
        Grant permit = backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.PERMIT, lease)
                        .permits(2)
                        .build())
                .orElseThrow();
        // Four renewals a third of the lease apart: past the first lease time, both still held.
        for (int i = 0; i < 4; i++) {
            List<Optional<Grant>> renewed = backend.renewAll(List.of(lock, permit), lease);
            assertThat(renewed).allMatch(Optional::isPresent);
            LockSupport.parkNanos(lease.dividedBy(3).toNanos());
        }
        CuratorFramework admin = admin();
        String node = admin.getChildren().forPath(path(name) + "/leases").get(0);
        admin.delete().forPath(path(name) + "/leases/" + node);
        Await.condition("the permit reported gone", grant(), () -> backend.renewAll(List.of(lock, permit), lease)
                .get(1)
                .isEmpty());
        assertThat(backend.renewAll(List.of(lock, permit), lease).get(0)).isPresent();
        assertThat(backend.release(permit)).isFalse();
        assertThat(backend.release(lock)).isTrue();
    }

    private static String owner() {
        return UUID.randomUUID().toString().replace("-", "");
    }
}
