package dev.baton.tck;

import static dev.baton.tck.KitTime.LEASE;
import static dev.baton.tck.KitTime.SLACK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import java.time.Duration;
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
            Throwable thrown = Await.result(
                    contract.inThread(
                            () -> catchThrowable(() -> client.lock(name).unlock())),
                    contract.grant());
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
        long childToken = Long.parseLong(child.awaitLine("ACQUIRED", KitTime.COLD_START));
        DistributedLock lock = contract.client().lock(name);
        assertThat(lock.tryAcquire()).as("held by the child").isEmpty();

        KitTime.Stopwatch killed = KitTime.stopwatch();
        child.kill9();
        try (Lease next = lock.acquire(KitTime.bound(lease.plus(SLACK)))) {
            assertThat(killed.millis())
                    .as("ms from kill -9 to the next grant (%s)", killed)
                    .isLessThanOrEqualTo(killed.allows(lease.plus(SLACK)).toMillis());
            assertThat(next.fencingToken()).isGreaterThan(childToken);
        }
    }
}
