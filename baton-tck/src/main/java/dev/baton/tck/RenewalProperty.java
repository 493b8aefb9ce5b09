package dev.baton.tck;

import static dev.baton.tck.KitTime.SLACK;
import static dev.baton.tck.KitTime.millisSince;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The kit's renewal property ({@link LockBackendContract.Renewal}): auto-renewal keeps a lease
 * past its lease time and stops on release; without it the lease expires and is reported lost; and
 * fencing tokens strictly increase over a thousand acquisitions by three clients.
 */
abstract class RenewalProperty {
    private final LockBackendContract contract;

    RenewalProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    @Test
    void autoRenewalKeepsTheLockForThreeLeaseTimesAndStopsOnRelease() {
        RecordingBackend backend = contract.recordingBackend(contract.options());
        Duration lease = contract.lease(Duration.ofSeconds(1));
        LockOptions shortLease = contract.options().withLeaseTime(lease);
        LockClient client = contract.track(Baton.open(backend, shortLease));
        String name = contract.lockName();
        DistributedLock other = contract.client().lock(name);

        Lease held = client.lock(name).acquire(contract.grant());
        long start = System.nanoTime();
        while (millisSince(start) < lease.toMillis() * 3 + 300) {
            assertThat(held.isValid()).isTrue();
            assertThat(other.tryAcquire())
                    .as("held past its lease time by renewal")
                    .isEmpty();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        held.checkValid();
        assertThat(backend.renewals.get())
                .as("renewals during three lease times")
                .isGreaterThanOrEqualTo(5);

        held.close();
        int renewalsAtRelease = backend.renewals.get();
        assertThat(held.isValid()).isFalse();
        try (Lease next = other.tryAcquire().orElseThrow(() -> new AssertionError("free after release"))) {
            // Watch one lease time: a renewal scheduled before the release must not run.
            long watchStart = System.nanoTime();
            while (millisSince(watchStart) < lease.toMillis()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
            assertThat(backend.renewals.get()).isEqualTo(renewalsAtRelease);
            assertThat(backend.renewalsAfterRelease.get()).isZero();
            assertThat(next.isValid()).isTrue();
        }
    }

    @Test
    void withoutAutoRenewalTheLeaseExpiresAndIsReportedLost() throws Exception {
        String name = contract.lockName();
        Duration lease = contract.lease(Duration.ofMillis(800));
        LockOptions noRenew =
                contract.options().toBuilder().leaseTime(lease).autoRenew(false).build();
        Lease held = contract.client(noRenew).lock(name).acquire(contract.grant());
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        held.onLost(lost::complete);
        assertThat(Await.result(lost, lease.plus(SLACK))).hasMessageContaining(name);
        assertThat(held.isValid()).isFalse();
        try (Lease next = contract.client().lock(name).acquire(SLACK)) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
        held.close(); // must not throw for a lost lease
    }

    @Test
    void fencingTokensStrictlyIncreaseOverAThousandAcquisitionsByThreeClients() {
        String name = contract.lockName();
        List<DistributedLock> locks = List.of(
                contract.client().lock(name),
                contract.client().lock(name),
                contract.client().lock(name));
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            try (Lease lease = locks.get(i % locks.size()).acquire(contract.grant())) {
                tokens.add(lease.fencingToken());
            }
        }
        CriticalSections.assertStrictlyIncreasing(tokens);
        assertThat(new HashSet<>(tokens)).hasSize(1000);
    }
}
