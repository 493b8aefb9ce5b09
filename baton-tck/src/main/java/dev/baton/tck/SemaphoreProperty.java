package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The kit's semaphore suite ({@link LockBackendContract.Semaphores}): never more than N permit
 * holders of a name across threads, clients and processes; N holders at once really are possible;
 * a crashed holder's permit comes back within its lease; tokens increase; the count belongs to the
 * name; a timed-out waiter leaves nothing behind. A backend without {@link Capability#SEMAPHORES}
 * must refuse semaphores with a clear error instead.
 */
abstract class SemaphoreProperty {
    /** Permits each of three processes takes in turn, two at a time, in the cross-process run. */
    private static final int ITERATIONS_PER_PROCESS = 15;

    private final LockBackendContract contract;

    SemaphoreProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    private boolean supported() {
        return contract.fixture().capabilities().contains(Capability.SEMAPHORES);
    }

    /** Skips a test of semaphores on a backend without them. */
    private void assumeSupported() {
        assumeTrue(
                supported(),
                "no semaphores (Capability.SEMAPHORES): aBackendWithoutSemaphoresRefusesThemClearly checks their"
                        + " refusal instead");
    }

    private DistributedSemaphore semaphore(LockClient client, String name, int permits) {
        return client.semaphore(name, permits);
    }

    @Test
    void aBackendWithoutSemaphoresRefusesThemClearly() {
        assumeFalse(supported(), "the backend has semaphores (Capability.SEMAPHORES)");
        LockClient client = contract.client();
        assertThatThrownBy(() -> client.semaphore(contract.lockName(), 2))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining(client.backendName())
                .hasMessageContaining("no semaphores");
    }

    @Test
    void badPermitCountsAndNamesAreRefused() {
        LockClient client = contract.client();
        assertThatThrownBy(() -> client.semaphore(contract.lockName(), 0))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("at least 1");
        assertThatThrownBy(() -> client.semaphore("", 2)).isInstanceOf(LockConfigurationException.class);
    }

    @Test
    void nPermitsAreHeldTogetherTheNextWaitsAndGetsAReleasedOne() throws Exception {
        assumeSupported();
        String name = contract.lockName();
        LockClient first = contract.client();
        LockClient second = contract.client();
        List<Lease> held = new ArrayList<>();
        held.add(semaphore(first, name, 3).acquire(contract.grant()));
        held.add(semaphore(second, name, 3).acquire(contract.grant()));
        held.add(semaphore(first, name, 3).tryAcquire().orElseThrow());
        for (int i = 1; i < held.size(); i++) {
            assertThat(held.get(i).fencingToken())
                    .as("a later permit's token")
                    .isGreaterThan(held.get(i - 1).fencingToken());
        }
        assertThat(semaphore(second, name, 3).tryAcquire())
                .as("a fourth permit of three")
                .isEmpty();

        Future<Lease> waiter = contract.inThread(
                () -> semaphore(second, name, 3).acquire(KitTime.bound(KitTime.OPERATION_TIMEOUT.multipliedBy(2))));
        held.get(1).close();
        Lease next = Await.result(waiter, KitTime.bound(KitTime.OPERATION_TIMEOUT.multipliedBy(3)));
        assertThat(next.fencingToken()).isGreaterThan(held.get(2).fencingToken());
        assertThat(semaphore(first, name, 3).tryAcquire())
                .as("three held again")
                .isEmpty();
        next.close();
        held.get(0).close();
        held.get(2).close();
    }

    @Test
    void neverMoreThanNHoldersAcrossThreadsOfThreeClients() throws Exception {
        assumeSupported();
        String name = contract.lockName();
        int permits = 3;
        int clients = 3;
        int threadsPerClient = 3;
        int iterations = 10;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        Duration run = KitTime.bulkWork(clients * threadsPerClient * iterations);
        List<Future<Object>> workers = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            DistributedSemaphore semaphore = semaphore(contract.client(), name, permits);
            for (int t = 0; t < threadsPerClient; t++) {
                workers.add(contract.inThread(() -> {
                    for (int i = 0; i < iterations; i++) {
                        try (Lease permit = semaphore.acquire(run)) {
                            int now = inside.incrementAndGet();
                            most.accumulateAndGet(now, Math::max);
                            tokens.add(permit.fencingToken());
                            Thread.yield();
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
        }
        for (Future<Object> worker : workers) {
            Await.result(worker, run);
        }
        assertThat(most.get()).as("most permit holders at once").isLessThanOrEqualTo(permits);
        assertThat(new HashSet<>(tokens))
                .as("every permit's token is its own")
                .hasSize(clients * threadsPerClient * iterations);
    }

    @Test
    void neverMoreThanNHoldersAcrossThreeProcesses() throws Exception {
        assumeSupported();
        String name = contract.lockName();
        Path dir = Files.createTempDirectory("baton-tck-permits");
        try {
            // Three processes: the JVM's two workers (ForkedWorkers) and this JVM.
            Duration lease = contract.lease(Duration.ofSeconds(10));
            // A worker started for this run warms up first (ColdStart).
            Duration run = KitTime.COLD_START.plus(KitTime.bulkWork(3 * ITERATIONS_PER_PROCESS));
            List<ForkedWorkers.Run> others = ForkedWorkers.run(
                    2,
                    "count-permits",
                    contract.fixture().uri(),
                    name,
                    "2",
                    Integer.toString(ITERATIONS_PER_PROCESS),
                    dir.toString(),
                    Long.toString(lease.toMillis()));
            Future<String> here = contract.inThread(() -> ForkedLockClient.countPermits(
                    contract.fixture().uri(), name, 2, ITERATIONS_PER_PROCESS, dir, lease));
            assertThat(Await.result(here, run))
                    .as("what this JVM saw (null: never more than 2 holders)")
                    .isNull();
            for (ForkedWorkers.Run other : others) {
                assertThat(other.await(run))
                        .as("what another process saw; its worker's stderr:\n%s", other.stderrTail())
                        .isEqualTo("DONE");
            }
        } finally {
            try (var files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void aKilledHoldersPermitComesBackWithinItsLease() throws Exception {
        assumeSupported();
        String name = contract.lockName();
        Duration lease = contract.lease(KitTime.LEASE);
        ForkedJvm child = contract.track(
                ForkedJvm.start("hold-permit", contract.fixture().uri(), name, "1", Long.toString(lease.toMillis())));
        long childToken = Long.parseLong(child.awaitLine("ACQUIRED", KitTime.COLD_START));
        DistributedSemaphore semaphore = semaphore(contract.client(), name, 1);
        assertThat(semaphore.tryAcquire()).as("the child holds the only permit").isEmpty();

        KitTime.Stopwatch killed = KitTime.stopwatch();
        child.kill9();
        try (Lease next = semaphore.acquire(KitTime.bound(lease.plus(KitTime.SLACK)))) {
            assertThat(killed.millis())
                    .as("ms from kill -9 to the next grant (%s)", killed)
                    .isLessThanOrEqualTo(
                            killed.allows(lease.plus(KitTime.SLACK)).toMillis());
            assertThat(next.fencingToken()).isGreaterThan(childToken);
        }
    }

    @Test
    void aRenewedPermitOutlivesItsLeaseWhileAnUnrenewedOneIsGivenBackAndReportedLost() {
        assumeSupported();
        String name = contract.lockName();
        Duration lease = contract.lease(KitTime.LEASE);
        Lease renewed = semaphore(contract.client(), name, 2).acquire(contract.grant());
        LockClient lapsing =
                contract.client(contract.options().toBuilder().autoRenew(false).build());
        Lease unrenewed = semaphore(lapsing, name, 2).acquire(contract.grant());
        AtomicInteger lossReports = new AtomicInteger();
        unrenewed.onLost(lost -> lossReports.incrementAndGet());

        DistributedSemaphore third = semaphore(contract.client(), name, 2);
        assertThat(third.tryAcquire()).as("both permits held").isEmpty();
        try (Lease taken = third.acquire(KitTime.bound(lease.plus(KitTime.SLACK)))) {
            assertThat(taken.fencingToken()).isGreaterThan(unrenewed.fencingToken());
            Await.condition("the unrenewed permit to be reported lost", KitTime.SLACK, () -> lossReports.get() == 1);
            assertThat(unrenewed.isValid()).isFalse();
            // The taken permit came free when the unrenewed one's lease ran out, one lease time after
            // it was acquired, so more than one lease time after the renewed one was: only renewal
            // can have kept that one, and the semaphore must be full again.
            assertThat(renewed.isValid()).isTrue();
            assertThat(third.tryAcquire())
                    .as("the renewed permit is still held")
                    .isEmpty();
            // While the semaphore is full (taken and renewed held): closing the lost permit frees
            // nothing. After taken's close one of the two permits is free, so this is checked here.
            unrenewed.close(); // lost already: closing logs, never throws, never frees another's permit
            assertThat(third.tryAcquire())
                    .as("full after the lost permit's close")
                    .isEmpty();
        }
        assertThat(third.tryAcquire())
                .as("one of two permits free after taken's close")
                .isPresent()
                .get()
                .satisfies(Lease::close);
        renewed.close();
        assertThat(third.tryAcquire()).isPresent().get().satisfies(Lease::close);
    }

    @Test
    void thePermitCountBelongsToTheName() {
        assumeSupported();
        String name = contract.lockName();
        LockClient client = contract.client();
        try (Lease held = semaphore(client, name, 2).acquire(contract.grant())) {
            assertThat(held.isValid()).isTrue();
            assertThatThrownBy(() -> semaphore(contract.client(), name, 3).tryAcquire())
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("2")
                    .hasMessageContaining("3");
        }
    }

    @Test
    void aTimedOutWaiterLeavesNothingBehindAndLocksOfTheSameNameAreIndependent() {
        assumeSupported();
        String name = contract.lockName();
        DistributedSemaphore semaphore = semaphore(contract.client(), name, 1);
        Lease held = semaphore.acquire(contract.grant());
        DistributedSemaphore other = semaphore(contract.client(), name, 1);
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> other.acquire(Duration.ofMillis(100)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining(name);
        }
        try (Lease lock = contract.client().lock(name).acquire(contract.grant())) {
            assertThat(lock.isValid())
                    .as("a lock of the semaphore's name is another thing")
                    .isTrue();
        }
        held.close();
        Optional<Lease> next = other.tryAcquire();
        assertThat(next).as("no timed-out waiter kept the only permit").isPresent();
        next.get().close();
    }
}
