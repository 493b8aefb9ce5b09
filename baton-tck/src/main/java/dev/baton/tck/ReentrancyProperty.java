package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The kit's reentrancy property ({@link LockBackendContract.Reentrancy}): a thread that acquires
 * again, through the same handle or another of the same name on its client, gets the same grant and
 * token, and only the last release frees the lock; a lease may be closed from another thread, and
 * closing it twice releases once.
 */
abstract class ReentrancyProperty {
    private final LockBackendContract contract;

    ReentrancyProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    @Test
    void sameThreadGetsSameGrantAndOnlyLastReleaseFrees() {
        String name = contract.lockName();
        DistributedLock lock = contract.client().lock(name);
        DistributedLock other = contract.client().lock(name);

        Lease first = lock.acquire(contract.grant());
        Lease second = lock.acquire(contract.grant());
        lock.lock();
        assertThat(lock.holdCount()).isEqualTo(3);
        assertThat(second.fencingToken()).isEqualTo(first.fencingToken());
        assertThat(lock.isHeldByCurrentThread()).isTrue();

        lock.unlock();
        second.close();
        assertThat(lock.holdCount()).isEqualTo(1);
        assertThat(other.tryAcquire()).as("still held after inner releases").isEmpty();

        first.close();
        assertThat(lock.holdCount()).isZero();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        try (Lease next = other.tryAcquire().orElseThrow(() -> new AssertionError("free after the last release"))) {
            assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
        }
    }

    @Test
    void anotherHandleOfTheSameNameOnTheSameClientIsReentrant() {
        LockClient client = contract.client();
        String name = contract.lockName();
        try (Lease outer = client.lock(name).acquire(contract.grant());
                Lease inner = client.lock(name).acquire(Duration.ofSeconds(1))) {
            assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        }
        assertThat(contract.client().lock(name).tryAcquire()).isPresent();
    }

    @Test
    void leaseMayBeClosedFromAnotherThread() throws Exception {
        String name = contract.lockName();
        DistributedLock lock = contract.client().lock(name);
        Lease lease = lock.acquire(contract.grant());
        Await.result(
                contract.inThread(() -> {
                    lease.close();
                    return null;
                }),
                contract.grant());
        assertThat(lease.isValid()).isFalse();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(contract.client().lock(name).tryAcquire())
                .as("free after close from another thread")
                .isPresent();
    }

    @Test
    void closingALeaseTwiceReleasesOnlyOnce() {
        String name = contract.lockName();
        DistributedLock lock = contract.client().lock(name);
        Lease outer = lock.acquire(contract.grant());
        Lease inner = lock.acquire(contract.grant());
        inner.close();
        inner.close();
        assertThat(lock.holdCount()).isEqualTo(1);
        assertThat(contract.client().lock(name).tryAcquire()).isEmpty();
        outer.close();
    }
}
