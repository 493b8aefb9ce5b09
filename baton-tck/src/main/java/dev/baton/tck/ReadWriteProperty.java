package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.DistributedReadWriteLock;
import dev.baton.Lease;
import dev.baton.LockException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The kit's read/write property ({@link LockBackendContract.ReadWrite}): readers share, a writer
 * excludes readers and writers, a waiting reader gets the lock on the writer's release, and an
 * upgrade from read to write is refused instead of deadlocking. A backend without {@link
 * Capability#SHARED_MODE} must refuse read locks with {@link UnsupportedOperationException}
 * instead.
 */
abstract class ReadWriteProperty {
    private final LockBackendContract contract;

    ReadWriteProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    private boolean supported() {
        return contract.fixture().capabilities().contains(Capability.SHARED_MODE);
    }

    /** Skips a test of read/write locks on a backend without them. */
    private void assumeSupported() {
        assumeTrue(
                supported(),
                "no read/write locks (Capability.SHARED_MODE): aBackendWithoutReadWriteLocksRefusesThemClearly"
                        + " checks their refusal instead");
    }

    @Test
    void aBackendWithoutReadWriteLocksRefusesThemClearly() {
        assumeFalse(supported(), "the backend has read/write locks (Capability.SHARED_MODE)");
        DistributedReadWriteLock first = contract.client().readWriteLock(contract.lockName());
        assertThatThrownBy(() -> first.readLock().acquire(Duration.ofSeconds(1)))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void readersShareAndAWriterExcludesThem() {
        assumeSupported();
        String name = contract.lockName();
        DistributedReadWriteLock first = contract.client().readWriteLock(name);
        DistributedReadWriteLock second = contract.client().readWriteLock(name);
        DistributedReadWriteLock writer = contract.client().readWriteLock(name);
        Lease readerOne = first.readLock().acquire(contract.grant());
        Lease readerTwo = second.readLock().acquire(contract.grant());
        assertThat(readerOne.isValid() && readerTwo.isValid()).isTrue();
        assertThat(writer.writeLock().tryAcquire())
                .as("writer excluded by readers")
                .isEmpty();

        readerOne.close();
        assertThat(writer.writeLock().tryAcquire())
                .as("writer still excluded by one reader")
                .isEmpty();
        readerTwo.close();
        try (Lease written = writer.writeLock().acquire(contract.grant())) {
            assertThat(first.readLock().tryAcquire())
                    .as("reader excluded by writer")
                    .isEmpty();
            assertThat(second.writeLock().tryAcquire())
                    .as("writer excluded by writer")
                    .isEmpty();
            assertThat(written.fencingToken()).isGreaterThan(readerTwo.fencingToken());
        }
        try (Lease again = first.readLock().acquire(contract.grant())) {
            assertThat(again.isValid()).isTrue();
        }
    }

    @Test
    void readerWaitingForAWriterGetsTheLockWhenItIsReleased() throws Exception {
        assumeSupported();
        String name = contract.lockName();
        Lease written = contract.client().readWriteLock(name).writeLock().acquire(contract.grant());
        DistributedReadWriteLock readers = contract.client().readWriteLock(name);
        CountDownLatch bothIn = new CountDownLatch(2);
        // Both waiters served once the writer released: a hand-over, then the other reader's grant.
        Duration served = KitTime.bound(KitTime.OPERATION_TIMEOUT.multipliedBy(3));
        List<Future<Long>> results = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            results.add(contract.inThread(() -> {
                try (Lease lease = readers.readLock().acquire(served)) {
                    bothIn.countDown();
                    // Both readers must be inside together.
                    if (!bothIn.await(served.toMillis(), TimeUnit.MILLISECONDS)) {
                        throw new AssertionError("readers did not share the lock");
                    }
                    return lease.fencingToken();
                }
            }));
        }
        written.close();
        for (Future<Long> result : results) {
            assertThat(Await.result(result, served)).isGreaterThan(written.fencingToken());
        }
    }

    @Test
    void upgradingFromReadToWriteIsRefusedInsteadOfDeadlocking() {
        assumeSupported();
        DistributedReadWriteLock lock = contract.client().readWriteLock(contract.lockName());
        try (Lease read = lock.readLock().acquire(contract.grant())) {
            assertThatThrownBy(() -> lock.writeLock().acquire(Duration.ofSeconds(1)))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("read lock");
            assertThat(read.isValid()).isTrue();
        }
    }
}
