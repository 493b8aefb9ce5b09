package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockKind;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What each fault of {@link MemFaults} does to the clients of its namespace. */
class MemFaultsTest {
    static final Duration LEASE = Duration.ofSeconds(1);
    static final Duration OPERATION_TIMEOUT = Duration.ofMillis(500);
    static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(LEASE)
            .operationTimeout(OPERATION_TIMEOUT)
            .pollInitialDelay(Duration.ofMillis(5))
            .pollMaxDelay(Duration.ofMillis(50))
            .build();

    @RegisterExtension
    static MemLocksExtension mem = MemLocksExtension.withOptions(OPTIONS);

    private static CompletableFuture<LockLostException> lossOf(Lease lease) {
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        lease.onLost(lost::complete);
        return lost;
    }

    private static LockLostException reported(CompletableFuture<LockLostException> lost) throws Exception {
        return lost.get(KitTime.bound(LEASE).toMillis(), TimeUnit.MILLISECONDS);
    }

    private static LockClient another(MemFaults faults) {
        return Baton.connect(faults.uri(), OPTIONS);
    }

    @Test
    void aLostLeaseIsFreeAtOnceAndItsHolderIsToldAtItsNextRenewal(LockClient client, MemFaults faults)
            throws Exception {
        Lease lease = client.lock("job").acquire(LEASE);
        CompletableFuture<LockLostException> lost = lossOf(lease);

        assertThat(faults.lose(lease)).isTrue();
        try (LockClient other = another(faults);
                Lease next = other.lock("job").tryAcquire().orElseThrow(() -> new AssertionError("free at once"))) {
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
            assertThat(reported(lost)).hasMessageContaining("job").hasMessageContaining("no longer has this grant");
            assertThat(lease.isValid()).isFalse();
            assertThat(faults.lose(lease)).as("gone already").isFalse();
            lease.close(); // the lost holder's release leaves the new holder alone
            assertThat(next.isValid()).isTrue();
            assertThat(client.lock("job").tryAcquire()).isEmpty();
        }
        assertThat(faults.events())
                .extracting(MemEvent::type, MemEvent::fencingToken)
                .first()
                .isEqualTo(org.assertj.core.groups.Tuple.tuple(MemEvent.Type.GRANTED, lease.fencingToken()));
        assertThat(faults.events())
                .extracting(MemEvent::type)
                .containsSubsequence(MemEvent.Type.GRANTED, MemEvent.Type.BROKEN, MemEvent.Type.GRANTED);
    }

    @Test
    void losingANameDropsItsLockBothSidesAndItsPermitsButNoOtherName(LockClient client, MemFaults faults) {
        Lease reader = client.readWriteLock("report").readLock().acquire(LEASE);
        Lease otherReader;
        Lease permit;
        try (LockClient other = another(faults)) {
            otherReader = other.readWriteLock("report").readLock().acquire(LEASE);
            permit = other.semaphore("report", 2).acquire(LEASE);
            Lease elsewhere = other.lock("report-2").acquire(LEASE);

            assertThat(faults.lose("report")).isEqualTo(3);
            assertThat(faults.lose("report")).isZero();
            try (LockClient writer = another(faults)) {
                assertThat(writer.readWriteLock("report").writeLock().tryAcquire())
                        .as("no reader left")
                        .isPresent()
                        .get()
                        .satisfies(Lease::close);
            }
            assertThat(client.lock("report-2").tryAcquire()).as("another name").isEmpty();
            assertThat(elsewhere.isValid()).isTrue();
        }
        assertThat(List.of(reader, otherReader, permit))
                .allSatisfy(lease -> assertThat(faults.tokens("report")).contains(lease.fencingToken()));
    }

    @Test
    void refusedRenewalsLoseTheLeaseAtItsValidityDeadline(LockClient client, MemFaults faults) throws Exception {
        Lease refused = client.lock("refused").acquire(LEASE);
        Lease kept = client.lock("kept").acquire(LEASE);
        CompletableFuture<LockLostException> lost = lossOf(refused);
        long from = System.nanoTime();

        try (MemFault fault = faults.refuseRenewals("refused")) {
            assertThat(reported(lost)).hasMessageContaining("refused");
            // Its last answered renewal was sent at most a third of the lease before the fault.
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - from))
                    .isGreaterThanOrEqualTo(LEASE.multipliedBy(2).dividedBy(3).toMillis() - 50);
            assertThat(kept.isValid()).as("another name renews").isTrue();
            assertThat(fault.isActive()).isTrue();
        }
        refused.close(); // lost: closing logs and never throws
        try (Lease again = client.lock("refused").acquire(LEASE)) {
            assertThat(lossOf(again)).as("renewed again once the fault ended").isNotDone();
        }
    }

    @Test
    void aRefusedRenewalFailsAsAServerErrorDoes(MemFaults faults) {
        try (LockBackend backend = Baton.backend(faults.uri(), OPTIONS)) {
            Grant grant = backend.tryAcquire(request("refused")).orElseThrow();
            try (MemFault refusal = faults.refuseRenewals("refused")) {
                assertThatThrownBy(() -> backend.renew(grant, LEASE))
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("'refused'")
                        .hasMessageContaining("refuseRenewals");
                assertThat(backend.tryAcquire(request("other")))
                        .as("the other calls are answered")
                        .isPresent();
            }
            assertThat(backend.renew(grant, LEASE)).isPresent();
        }
    }

    private static LockRequest request(String name) {
        return LockRequest.builder(name, UUID.randomUUID().toString().replace("-", ""), LockKind.MUTEX, LEASE)
                .build();
    }

    @Test
    void aStalledRenewalHangsUntilTheFaultEndsOrTheOperationTimeoutPasses(MemFaults faults) throws Exception {
        try (LockBackend backend = Baton.backend(faults.uri(), OPTIONS)) {
            Grant grant = backend.tryAcquire(request("stalled")).orElseThrow();
            MemFault stall = faults.stallRenewals("stalled");

            long start = System.nanoTime();
            assertThatThrownBy(() -> backend.renew(grant, LEASE))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("stalled")
                    .hasMessageContaining("stallRenewals");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                    .isGreaterThanOrEqualTo(OPERATION_TIMEOUT.toMillis());

            CompletableFuture<Optional<Grant>> renewal =
                    CompletableFuture.supplyAsync(() -> backend.renew(grant, LEASE));
            stall.close();
            assertThat(renewal.get(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                    .as("going on once the fault ended")
                    .isPresent();
        }
    }

    @Test
    void aLeaseWhoseRenewalsStallIsLostAtItsValidityDeadline(LockClient client, MemFaults faults) throws Exception {
        Lease stalled = client.lock("stalled").acquire(LEASE);
        Lease kept = client.lock("kept").acquire(LEASE);
        CompletableFuture<LockLostException> lost = lossOf(stalled);
        try (MemFault stall = faults.stallRenewals("stalled")) {
            assertThat(reported(lost)).hasMessageContaining("stalled");
            assertThat(kept.isValid()).isTrue();
        }
    }

    @Test
    void anUnreachableBackendFailsEveryCallAtOnceUntilTheFaultEnds(LockClient client, MemFaults faults)
            throws Exception {
        Lease held = client.lock("held").acquire(LEASE);
        CompletableFuture<LockLostException> lost = lossOf(held);
        try (LockClient other = another(faults)) {
            CompletableFuture<Lease> waiter = other.lock("held").acquireAsync(Duration.ofSeconds(30));
            MemFault outage = faults.unreachable();

            assertThatThrownBy(() -> client.lock("other").acquire(Duration.ofSeconds(30)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("other")
                    .hasMessageContaining("unreachable");
            assertThatThrownBy(() -> waiter.get(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                    .as("a waiter stops waiting")
                    .hasCauseInstanceOf(LockUnavailableException.class);
            assertThat(reported(lost)).as("renewals fail too").hasMessageContaining("held");

            outage.close();
            try (Lease lease = other.lock("other").acquire(LEASE)) {
                assertThat(lease.isValid()).isTrue();
            }
        }
    }

    @Test
    void anOutageForAWhileEndsByItself(LockClient client, MemFaults faults) {
        MemFault outage = faults.unreachable(Duration.ofMillis(300));
        DistributedLock lock = client.lock("after");
        assertThatThrownBy(lock::tryAcquire).isInstanceOf(LockUnavailableException.class);
        await().atMost(KitTime.grant()).until(() -> !outage.isActive());
        assertThat(lock.tryAcquire()).isPresent().get().satisfies(Lease::close);
    }

    @Test
    void advancingTheClockEndsTheLeasesItPassesAndHandsTheirLocksOn(LockClient client, MemFaults faults)
            throws Exception {
        Lease passed = client.lock("passed").acquire(LEASE);
        Lease longer = client.lock("longer", OPTIONS.withLeaseTime(Duration.ofMinutes(1)))
                .acquire(LEASE);
        try (LockClient other = another(faults)) {
            CompletableFuture<Lease> waiter = other.lock("passed").acquireAsync(Duration.ofSeconds(30));
            java.time.Instant before = faults.now();

            faults.advanceClock(LEASE.multipliedBy(2));

            assertThat(faults.now()).isAfterOrEqualTo(before.plus(LEASE.multipliedBy(2)));
            Lease next = waiter.get(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS);
            assertThat(next.fencingToken()).isGreaterThan(passed.fencingToken());
            assertThat(other.lock("longer").tryAcquire())
                    .as("a lease longer than the jump")
                    .isEmpty();
            assertThat(longer.isValid()).isTrue();
            next.close();
        }
        assertThat(faults.events())
                .filteredOn(event -> event.type() == MemEvent.Type.EXPIRED)
                .extracting(MemEvent::name)
                .containsExactly("passed");
    }

    @Test
    void everyGrantIsRecordedWithItsTokenAndHolder(LockClient client, MemFaults faults) {
        for (int i = 0; i < 3; i++) {
            client.lock("counted").acquire(LEASE).close();
        }
        client.semaphore("counted", 2).acquire(LEASE).close();

        List<Long> tokens = faults.tokens("counted");
        assertThat(tokens).hasSize(4).isSorted().doesNotHaveDuplicates();
        assertThat(faults.grants())
                .extracting(MemEvent::kind)
                .containsExactly(LockKind.MUTEX, LockKind.MUTEX, LockKind.MUTEX, LockKind.PERMIT);
        assertThat(faults.grants()).allSatisfy(event -> assertThat(event.holder())
                .contains("thread " + Thread.currentThread().getName()));
        assertThat(faults.events())
                .extracting(MemEvent::type)
                .containsExactly(
                        MemEvent.Type.GRANTED,
                        MemEvent.Type.RELEASED,
                        MemEvent.Type.GRANTED,
                        MemEvent.Type.RELEASED,
                        MemEvent.Type.GRANTED,
                        MemEvent.Type.RELEASED,
                        MemEvent.Type.GRANTED,
                        MemEvent.Type.RELEASED);
    }

    @Test
    void healEndsEveryFault(LockClient client, MemFaults faults) {
        MemFault outage = faults.unreachable();
        MemFault stall = faults.stallRenewals();
        MemFault refusal = faults.refuseRenewals("x");
        faults.heal();
        assertThat(List.of(outage, stall, refusal)).noneMatch(MemFault::isActive);
        assertThat(client.lock("x").tryAcquire()).isPresent().get().satisfies(Lease::close);
    }

    @Test
    void badArgumentsAreRefused(MemFaults faults) {
        assertThatThrownBy(() -> faults.advanceClock(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> faults.unreachable(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> faults.lose((Lease) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> faults.stallRenewals(null)).isInstanceOf(NullPointerException.class);
    }
}
