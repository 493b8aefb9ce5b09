package dev.baton.tck;

import static dev.baton.tck.KitTime.LEASE;
import static dev.baton.tck.KitTime.SLACK;
import static dev.baton.tck.KitTime.millisSince;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The kit's ownership property ({@link LockBackendContract.Ownership}): a thread that does not
 * hold the lock cannot release it, and the lock of a holder killed with SIGKILL comes free within
 * its lease, with a higher fencing token.
 */
abstract class OwnershipProperty {
    private final LockBackendContract contract;

    OwnershipProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    @Test
    void strangersUnlockThrowsAndDoesNotRelease() throws Exception {
        LockClient client = contract.client();
        String name = contract.lockName();
        DistributedLock lock = client.lock(name);
        lock.lock();
        try {
            Throwable thrown = contract.inThread(
                            () -> catchThrowable(() -> client.lock(name).unlock()))
                    .get(10, TimeUnit.SECONDS);
            assertThat(thrown).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(name);
            assertThat(contract.client().lock(name).tryAcquire())
                    .as("still held")
                    .isEmpty();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
        } finally {
            lock.unlock();
        }
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void holderKilledWithSigkillFreesTheLockWithinItsLease() throws Exception {
        String name = contract.lockName();
        Duration lease = contract.lease(LEASE);
        ForkedJvm child = contract.track(
                ForkedJvm.start("hold", contract.fixture().uri(), name, Long.toString(lease.toMillis())));
        long childToken = Long.parseLong(child.awaitLine("ACQUIRED", Duration.ofSeconds(60)));
        DistributedLock lock = contract.client().lock(name);
        assertThat(lock.tryAcquire()).as("held by the child").isEmpty();

        long killedAt = System.nanoTime();
        child.kill9();
        try (Lease next = lock.acquire(lease.plus(SLACK).plus(Duration.ofSeconds(10)))) {
            assertThat(millisSince(killedAt))
                    .isLessThanOrEqualTo(lease.plus(SLACK).toMillis());
            assertThat(next.fencingToken()).isGreaterThan(childToken);
        }
    }
}
