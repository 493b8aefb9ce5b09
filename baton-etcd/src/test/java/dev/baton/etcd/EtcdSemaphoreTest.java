package dev.baton.etcd;

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
import dev.baton.LockUnavailableException;
import dev.baton.servers.EtcdServer;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Semaphores on one etcd member through the public API: the permit bound across threads and
 * clients, tokens, the waiting rule when permits are released out of order, expiry without renewal,
 * renewal (and, through the SPI, a renewal batch that mixes lock and permit grants), a count that
 * differs, and what waiters leave behind.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdSemaphoreTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(5))
            // Generous: the suite's machine may be busy; nothing here waits for a timeout to pass.
            .operationTimeout(Duration.ofSeconds(5))
            .build();
    private static final String NAMESPACE = "/sem";
    private static EtcdServer server;
    private static Client etcd;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = EtcdServer.start();
        etcd = Client.builder()
                .endpoints("http://" + server.endpoints().split(",")[0])
                .build();
    }

    @AfterAll
    static void stopServer() {
        if (etcd != null) {
            etcd.close();
        }
        if (server != null) {
            server.close();
        }
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

    private LockClient client(LockOptions options) {
        return track(Baton.connect(server.uri() + NAMESPACE, options));
    }

    private LockClient client() {
        return client(OPTIONS);
    }

    private static String name() {
        return "sem-" + UUID.randomUUID();
    }

    /** The permit keys of a semaphore, read directly. */
    private static List<KeyValue> permitKeys(String name) throws Exception {
        ByteSequence prefix = ByteSequence.from(
                NAMESPACE + new EtcdKeys("/baton/locks").permitPrefixText(name), StandardCharsets.UTF_8);
        return Await.result(
                        etcd.getKVClient()
                                .get(prefix, GetOption.builder().isPrefix(true).build()),
                        KitTime.grant())
                .getKvs();
    }

    @Test
    void neverMoreThanNHoldersAcrossEightThreadsOnThreeClients() throws Exception {
        String name = name();
        List<DistributedSemaphore> semaphores =
                List.of(client().semaphore(name, 4), client().semaphore(name, 4), client().semaphore(name, 4));
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Set<Long> tokens = ConcurrentHashMap.newKeySet();
        AtomicInteger grants = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        Duration run = KitTime.bulkWork(8 * 8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                DistributedSemaphore semaphore = semaphores.get(t % 3);
                done.add(threads.submit(() -> {
                    for (int i = 0; i < 8; i++) {
                        try (Lease lease = semaphore.acquire(run)) {
                            int now = holding.incrementAndGet();
                            most.accumulateAndGet(now, Math::max);
                            assertThat(tokens.add(lease.fencingToken()))
                                    .as("each permit has a token of its own")
                                    .isTrue();
                            lease.checkValid();
                            Thread.yield();
                            holding.decrementAndGet();
                            grants.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                Await.result(future, run);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(most.get()).as("holders at once").isBetween(1, 4);
        assertThat(grants.get()).isEqualTo(64);
        assertThat(permitKeys(name)).as("no key left after every release").isEmpty();
    }

    @Test
    void tokensStrictlyIncreaseAndASemaphoreAndALockOfOneNameNeverMeet() throws Exception {
        String name = name();
        LockClient client = client();
        try (Lease lock = client().lock(name).acquire(KitTime.grant())) {
            long last = lock.fencingToken();
            DistributedSemaphore semaphore = client.semaphore(name, 1);
            for (int i = 0; i < 5; i++) {
                try (Lease permit = semaphore
                        .tryAcquire()
                        .orElseThrow(() -> new AssertionError(
                                "the lock of the same name must not hold the semaphore's only permit"))) {
                    assertThat(permit.fencingToken()).isGreaterThan(last);
                    last = permit.fencingToken();
                }
            }
        }
    }

    @Test
    void aPermitReleasedOutOfOrderGoesToTheFirstWaiter() throws Exception {
        String name = name();
        DistributedSemaphore holders = client().semaphore(name, 2);
        Lease first = holders.acquire(KitTime.grant());
        Lease second = holders.acquire(KitTime.grant());
        DistributedSemaphore waiters = client().semaphore(name, 2);
        CompletableFuture<Lease> earlier = CompletableFuture.supplyAsync(() -> waiters.acquire(Duration.ofSeconds(30)));
        Await.condition("the first waiter to queue", KitTime.grant(), () -> keyCount(name) == 3);
        CompletableFuture<Lease> later = CompletableFuture.supplyAsync(() -> waiters.acquire(Duration.ofSeconds(30)));
        Await.condition("the second waiter to queue", KitTime.grant(), () -> keyCount(name) == 4);

        // The later holder leaves first: the permit is the first waiter's, though the key two places
        // ahead of it (the earlier holder) stays.
        second.close();
        Lease third = Await.result(earlier, KitTime.grant());
        assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
        assertThat(later).isNotDone();
        third.close();
        try (Lease fourth = Await.result(later, KitTime.grant())) {
            assertThat(fourth.fencingToken()).isGreaterThan(third.fencingToken());
            assertThat(first.isValid()).isTrue();
        }
        first.close();
    }

    private static int keyCount(String name) {
        try {
            return permitKeys(name).size();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aPermitNotRenewedComesBackAfterItsLeaseTime() throws Exception {
        String name = name();
        Duration lease = Duration.ofMillis(800);
        LockOptions noRenew =
                OPTIONS.toBuilder().leaseTime(lease).autoRenew(false).build();
        DistributedSemaphore stale = client(noRenew).semaphore(name, 2);
        Lease one = stale.acquire(KitTime.grant());
        Lease two = stale.acquire(KitTime.grant());
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        one.onLost(lost::complete);
        DistributedSemaphore other = client().semaphore(name, 2);
        assertThat(other.tryAcquire()).as("both permits held").isEmpty();
        // etcd expires the lease on its own clock: a TTL of whole seconds, at least its minimum one.
        try (Lease next = other.acquire(KitTime.bound(Duration.ofSeconds(2).plus(KitTime.TAKE_OVER)))) {
            assertThat(next.fencingToken()).isGreaterThan(Math.max(one.fencingToken(), two.fencingToken()));
        }
        // Reported when its validity ran out, before etcd freed the permit.
        assertThat(Await.result(lost, lease.plus(KitTime.SLACK))).hasMessageContaining(name);
    }

    @Test
    void renewalKeepsAPermitPastThreeLeaseTimes() throws Exception {
        String name = name();
        Duration lease = Duration.ofMillis(600);
        LockClient client = client(OPTIONS.withLeaseTime(lease));
        DistributedSemaphore other = client().semaphore(name, 1);
        try (Lease permit = client.semaphore(name, 1).acquire(KitTime.grant())) {
            long start = System.nanoTime();
            while (System.nanoTime() - start
                    < lease.multipliedBy(3).plusMillis(300).toNanos()) {
                assertThat(permit.isValid()).isTrue();
                assertThat(other.tryAcquire())
                        .as("held past its lease time by renewal")
                        .isEmpty();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
            permit.checkValid();
        }
        try (Lease next = other.tryAcquire().orElseThrow(() -> new AssertionError("free after release"))) {
            assertThat(next.isValid()).isTrue();
        }
    }

    @Test
    void oneRenewalCallMixesLockAndPermitGrantsAndTellsWhichIsGone() throws Exception {
        String name = name();
        Duration lease = Duration.ofSeconds(5);
        try (LockBackend backend = new EtcdLockBackendProvider().create(server.uri() + NAMESPACE, OPTIONS)) {
            Grant lock = backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.MUTEX, lease)
                            .build())
                    .orElseThrow();
            Grant permit = backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.PERMIT, lease)
                            .permits(2)
                            .build())
                    .orElseThrow();
            Grant other = backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.PERMIT, lease)
                            .permits(2)
                            .build())
                    .orElseThrow();
            assertThat(backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.PERMIT, lease)
                            .permits(2)
                            .build()))
                    .as("two permits of two held")
                    .isEmpty();
            assertThat(backend.renewAll(List.of(lock, permit, other), lease)).allMatch(Optional::isPresent);

            // Someone deletes one permit key by hand: that grant alone is reported gone.
            ByteSequence permitKey = ByteSequence.from(NAMESPACE, StandardCharsets.UTF_8)
                    .concat(((EtcdHeldKey) permit.backendState()).key);
            assertThat(Await.result(etcd.getKVClient().delete(permitKey), KitTime.grant())
                            .getDeleted())
                    .isEqualTo(1);
            List<Optional<Grant>> renewed = backend.renewAll(List.of(lock, permit, other), lease);
            assertThat(renewed.get(0)).isPresent();
            assertThat(renewed.get(1)).isEmpty();
            assertThat(renewed.get(2)).isPresent();
            assertThat(backend.release(lock)).isTrue();
            assertThat(backend.release(permit)).isFalse();
            assertThat(backend.release(other)).isTrue();
        }
        assertThat(permitKeys(name)).isEmpty();
    }

    private static String owner() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    @Test
    void aWaiterWhoseLeaseIsRevokedFailsAndLeavesNoKey() throws Exception {
        String name = name();
        Lease held = client().semaphore(name, 1).acquire(KitTime.grant());
        DistributedSemaphore waiting = client().semaphore(name, 1);
        CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> waiting.acquire(Duration.ofSeconds(30)));
        Await.condition("the waiter to queue", KitTime.grant(), () -> keyCount(name) == 2);
        long waiterLease = permitKeys(name).stream()
                .max(Comparator.comparingLong(KeyValue::getCreateRevision))
                .orElseThrow()
                .getLease();
        Await.result(etcd.getLeaseClient().revoke(waiterLease), KitTime.grant());
        assertThatThrownBy(() -> Await.result(waiter, KitTime.grant(OPTIONS.operationTimeout())))
                .hasCauseInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("Baton semaphore '" + name + "'")
                .hasMessageContaining("lease ended while waiting");
        assertThat(permitKeys(name)).as("the holder's key only").hasSize(1);
        assertThat(held.isValid()).isTrue();
        held.close();
        try (Lease next = waiting.acquire(KitTime.grant())) {
            assertThat(next.fencingToken())
                    .as("a new lease serves the next attempt")
                    .isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void aDifferentCountFailsNamingBothCountsAndTheFixAndPutsNoKey() throws Exception {
        String name = name();
        Lease held = client().semaphore(name, 4).acquire(KitTime.grant());
        DistributedSemaphore wrong = client().semaphore(name, 3);
        assertThatThrownBy(wrong::tryAcquire)
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("Baton semaphore '" + name + "' (3 permits)")
                .hasMessageContaining("etcd (")
                .hasMessageContaining("records 4 permits")
                .hasMessageContaining("asked for 3")
                .hasMessageContaining("use the same count everywhere")
                .hasMessageContaining("etcdctl del '" + NAMESPACE + "/baton/locks/%sem/" + name + "'");
        assertThatThrownBy(() -> wrong.acquire(Duration.ofSeconds(1))).isInstanceOf(LockConfigurationException.class);
        assertThat(permitKeys(name)).as("only the holder's key").hasSize(1);
        held.close();
        // The count belongs to the name, not to its holders.
        assertThatThrownBy(wrong::tryAcquire).isInstanceOf(LockConfigurationException.class);
        client().semaphore(name, 4).tryAcquire().orElseThrow().close();
    }

    @Test
    void waitersThatTimeOutOrAreInterruptedLeaveNoKey() throws Exception {
        String name = name();
        DistributedSemaphore semaphore = client().semaphore(name, 2);
        Lease one = semaphore.acquire(KitTime.grant());
        Lease two = semaphore.acquire(KitTime.grant());
        DistributedSemaphore other = client().semaphore(name, 2);
        assertThat(other.tryAcquire()).isEmpty();
        for (int i = 0; i < 10; i++) {
            assertThatThrownBy(() -> other.acquire(Duration.ofMillis(20)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("Baton semaphore '" + name + "'")
                    .hasMessageContaining("every permit");
        }
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Throwable> interrupted = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            started.countDown();
            try {
                other.acquire().close();
                interrupted.complete(null);
            } catch (Throwable e) {
                interrupted.complete(e);
            }
        });
        waiter.start();
        started.await();
        Await.condition("the waiter to queue", KitTime.grant(), () -> keyCount(name) == 3);
        waiter.interrupt();
        assertThat(Await.result(interrupted, KitTime.grant())).isInstanceOf(LockException.class);
        Set<String> left = new HashSet<>();
        for (KeyValue kv : permitKeys(name)) {
            left.add(kv.getValue().toString(StandardCharsets.UTF_8));
        }
        assertThat(left).as("the holders' keys only").hasSize(2);
        one.close();
        two.close();
        assertThat(permitKeys(name)).isEmpty();
    }
}
