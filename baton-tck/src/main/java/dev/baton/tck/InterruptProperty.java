package dev.baton.tck;

import static dev.baton.tck.KitTime.SLACK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockException;
import org.junit.jupiter.api.Test;

/**
 * The kit's interrupt property ({@link LockBackendContract.Interrupts}): an interrupted waiter
 * returns promptly with its interrupt flag restored and leaves no state behind; {@code
 * lockInterruptibly} throws {@link InterruptedException}, also for a thread interrupted before it
 * waits.
 */
abstract class InterruptProperty {
    private final LockBackendContract contract;

    InterruptProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    @Test
    void interruptedWaiterReturnsPromptlyAndLeavesNoState() throws Exception {
        String name = contract.lockName();
        LockClient waiterClient = contract.client();
        Lease held = contract.client().lock(name).acquire(contract.grant());
        Waiter waiter = Waiter.start(() -> waiterClient.lock(name).acquire(), contract.grant());

        KitTime.Stopwatch interrupted = KitTime.stopwatch();
        waiter.thread().interrupt();
        Throwable thrown = Await.result(waiter.outcome(), contract.grant());
        assertThat(interrupted.millis())
                .as("prompt return (%s)", interrupted)
                .isLessThanOrEqualTo(interrupted.allows(SLACK).toMillis());
        assertThat(thrown).isInstanceOf(LockException.class).hasCauseInstanceOf(InterruptedException.class);
        assertThat(waiter.interruptFlag().get()).as("interrupt flag restored").isEqualTo(1);

        held.close();
        assertThat(waiterClient.lock(name).tryAcquire())
                .as("the interrupted waiter's client can take the lock at once")
                .isPresent();
    }

    @Test
    void lockInterruptiblyThrowsInterruptedException() throws Exception {
        String name = contract.lockName();
        LockClient waiterClient = contract.client();
        try (Lease held = contract.client().lock(name).acquire(contract.grant())) {
            Waiter waiter = Waiter.start(() -> waiterClient.lock(name).lockInterruptibly(), contract.grant());
            waiter.thread().interrupt();
            assertThat(Await.result(waiter.outcome(), contract.grant())).isInstanceOf(InterruptedException.class);
            assertThat(held.isValid()).isTrue();
        }
        assertThat(contract.client().lock(name).tryAcquire()).isPresent();
    }

    @Test
    void interruptedThreadDoesNotStartWaitingInterruptibly() {
        DistributedLock lock = contract.client().lock(contract.lockName());
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
    }
}
