package dev.baton.tck;

import static dev.baton.tck.KitTime.SLACK;
import static dev.baton.tck.KitTime.millisSince;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockConfigurationException;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The kit's extension property ({@link LockBackendContract.Extend}): {@link Lease#extend} keeps a
 * lease without auto-renewal past its original lease time, excluding other clients; a lease already
 * lost cannot be extended; bad durations and closed leases are refused. Every duration derives from
 * the fixture's lease time ({@link LockBackendContract#lease(Duration)}), and every extension is the
 * lease time the lock was acquired with, which every backend can serve (Azure Blob renews a lease
 * only for its acquired duration, etcd for its TTL in whole seconds).
 */
abstract class ExtendProperty {
    private final LockBackendContract contract;

    ExtendProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    private LockOptions withoutRenewal(Duration lease) {
        return contract.options().toBuilder().leaseTime(lease).autoRenew(false).build();
    }

    private static void parkUntil(long start, long millis) {
        while (millisSince(start) < millis) {
            LockSupport.parkNanos(
                    TimeUnit.MILLISECONDS.toNanos(Math.min(50, Math.max(1, millis - millisSince(start)))));
        }
    }

    @Test
    void anExtendedLeaseOutlivesItsOriginalLeaseTimeAndExcludesOthers() {
        String name = contract.lockName();
        Duration lease = contract.lease(Duration.ofSeconds(4));
        DistributedLock other = contract.client().lock(name);
        long start = System.nanoTime();
        Lease held = contract.client(withoutRenewal(lease)).lock(name).acquire(contract.grant());
        List<LockLostException> lost = new CopyOnWriteArrayList<>();
        held.onLost(lost::add);

        parkUntil(start, lease.toMillis() / 2);
        long extendSent = System.nanoTime();
        held.extend(lease);

        // Past the original expiry (counted from before the acquire), well within the extension.
        parkUntil(start, lease.toMillis() + 200);
        long checkStart = System.nanoTime();
        assertThat(held.isValid()).as("held past its original lease time").isTrue();
        assertThat(other.tryAcquire())
                .as("another client is excluded past the original lease time")
                .isEmpty();
        assertThat(TimeUnit.NANOSECONDS.toMillis(checkStart - extendSent))
                .as("the check ran within the extension (else the machine is too slow for this test)")
                .isLessThan(lease.toMillis());
        held.checkValid();
        assertThat(lost).isEmpty();

        held.close();
        try (Lease next = other.acquire(contract.grant())) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void aLeaseAlreadyLostCannotBeExtended() throws Exception {
        String name = contract.lockName();
        Duration lease = contract.lease(KitTime.LEASE);
        Lease held = contract.client(withoutRenewal(lease)).lock(name).acquire(contract.grant());
        List<LockLostException> told = new CopyOnWriteArrayList<>();
        held.onLost(told::add);
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        held.onLost(lost::complete);
        Await.result(lost, lease.plus(SLACK));

        try (Lease next = contract.client().lock(name).acquire(contract.grant())) {
            assertThatThrownBy(() -> held.extend(lease))
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining(name);
            assertThat(held.isValid()).isFalse();
            assertThat(next.isValid())
                    .as("a failed extension leaves the new owner alone")
                    .isTrue();
        }
        assertThat(told).as("onLost listeners hear of the loss once").hasSize(1);
        held.close();
    }

    @Test
    void badDurationsAndClosedLeasesAreRefused() {
        String name = contract.lockName();
        Duration lease = contract.lease(KitTime.LEASE);
        Lease held = contract.client(withoutRenewal(lease)).lock(name).acquire(contract.grant());
        for (Duration bad : new Duration[] {null, Duration.ZERO, Duration.ofMillis(-1)}) {
            assertThatThrownBy(() -> held.extend(bad))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining(name);
        }
        assertThat(held.isValid()).isTrue();
        held.close();
        assertThatThrownBy(() -> held.extend(lease)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anAutoRenewedLeaseIsExtendedByAtLeastItsLeaseTime() {
        String name = contract.lockName();
        Duration lease = contract.options().leaseTime();
        try (Lease held = contract.client().lock(name).acquire(contract.grant())) {
            assertThatThrownBy(() -> held.extend(lease.dividedBy(2)))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining(name);
            held.extend(lease);
            held.checkValid();
            assertThat(contract.client().lock(name).tryAcquire()).isEmpty();
        }
    }
}
