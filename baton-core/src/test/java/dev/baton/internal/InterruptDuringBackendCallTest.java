package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import dev.baton.spi.Waiting;
import dev.baton.testsupport.Await;
import dev.baton.testsupport.TestTime;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * A backend call cut short by the blocking caller's interrupt (ZooKeeper's and etcd's lines report
 * it as {@link LockUnavailableException}, the thread's interrupt flag set again, after removing what
 * the call may have left): an interruptible acquisition reports the interrupt, not a failure.
 */
class InterruptDuringBackendCallTest {

    /** Every lock is busy; entering the line is interrupted, as if the interrupt came during its I/O. */
    private static final class InterruptedLine implements LockBackend, WaitQueue {
        final CountDownLatch abandoned = new CountDownLatch(1);

        @Override
        public String name() {
            return "interrupted line";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            return Optional.empty();
        }

        @Override
        public Waiting waiting(LockKind kind) {
            return Waiting.queue(this);
        }

        @Override
        public Entry enter(LockRequest request, Runnable wake) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(
                    "lock '" + request.name() + "': interrupted while talking to the" + " server; retry");
        }

        @Override
        public void abandon(LockRequest request) {
            abandoned.countDown();
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            return Optional.of(grant);
        }

        @Override
        public boolean release(Grant grant) {
            return true;
        }

        @Override
        public void close() {}
    }

    @Test
    void lockInterruptiblyReportsAnInterruptThatCutABackendCallShort() throws InterruptedException {
        InterruptedLine backend = new InterruptedLine();
        try (ClientCore client = new ClientCore(backend, LockOptions.defaults())) {
            assertThatThrownBy(() -> client.lock("busy").lockInterruptibly()).isInstanceOf(InterruptedException.class);
            assertThat(Thread.interrupted())
                    .as("the interrupt flag, cleared as InterruptedException is thrown")
                    .isFalse();
            // On a call thread of the client, so that the caller hears of the failure at once.
            Await.condition(
                    "what the call may have left to be cleaned up",
                    TestTime.grant(),
                    () -> backend.abandoned.getCount() == 0);
        } finally {
            Thread.interrupted();
        }
    }
}
