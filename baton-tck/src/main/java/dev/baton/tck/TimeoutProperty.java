package dev.baton.tck;

import static dev.baton.tck.KitTime.SLACK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The kit's timeout property ({@link LockBackendContract.Timeouts}): an attempt on a held lock
 * returns empty at once or fails within its timeout plus {@link KitTime#SLACK}, naming
 * the lock and backend; a timed-out waiter leaves nothing behind; bad timeouts are refused.
 */
abstract class TimeoutProperty {
    private final LockBackendContract contract;

    TimeoutProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    @Test
    void tryAcquireIsEmptyWhileAnotherClientHolds() {
        String name = contract.lockName();
        try (Lease held = contract.client().lock(name).acquire(contract.grant())) {
            DistributedLock other = contract.client().lock(name);
            assertThat(other.tryAcquire()).isEmpty();
            assertThat(other.tryLock()).isFalse();
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void acquireWithTimeoutThrowsWithinTheTimeoutPlusSlack() {
        String name = contract.lockName();
        try (Lease held = contract.client().lock(name).acquire(contract.grant())) {
            DistributedLock other = contract.client().lock(name);
            Duration timeout = Duration.ofMillis(700);
            KitTime.Stopwatch waited = KitTime.stopwatch();
            assertThatThrownBy(() -> other.acquire(timeout))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining(
                            contract.fixture().connect(contract.options()).backendName());
            assertThat(waited.millis())
                    .as("%s", waited)
                    .isBetween(
                            timeout.toMillis() - 50,
                            waited.allows(timeout.plus(SLACK)).toMillis());
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void tryLockWithTimeReturnsFalseInTime() throws InterruptedException {
        String name = contract.lockName();
        try (Lease held = contract.client().lock(name).acquire(contract.grant())) {
            KitTime.Stopwatch waited = KitTime.stopwatch();
            assertThat(contract.client().lock(name).tryLock(300, TimeUnit.MILLISECONDS))
                    .isFalse();
            assertThat(waited.millis())
                    .as("%s", waited)
                    .isBetween(
                            250L,
                            waited.allows(Duration.ofMillis(300).plus(SLACK)).toMillis());
        }
    }

    @Test
    void timedOutWaiterLeavesNothingBehind() {
        String name = contract.lockName();
        LockClient waiterClient = contract.client();
        Lease held = contract.client().lock(name).acquire(contract.grant());
        assertThatThrownBy(() -> waiterClient.lock(name).acquire(Duration.ofMillis(200)))
                .isInstanceOf(LockTimeoutException.class);
        held.close();
        assertThat(contract.client().lock(name).tryAcquire())
                .as("a third client takes the lock at once after the holder released")
                .isPresent();
    }

    @Test
    void timeoutsAndNamesAreValidated() {
        DistributedLock lock = contract.client().lock(contract.lockName());
        assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(-1)))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("negative");
        assertThatThrownBy(() -> lock.acquire(null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(lock::newCondition)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("conditions are not supported");
    }
}
