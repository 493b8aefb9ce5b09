package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Lease;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.testsupport.Await;
import dev.baton.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A lease closed by two threads at once (a ShedLock provider's release thread letting a lost lease go
 * while the scheduler's thread does the same): the second close() must not return before the
 * release the first one started has finished, or an acquisition right after it finds its own
 * client's gate still taken and gives up.
 */
class ConcurrentCloseTest {

    /** One lock; its release waits until the test lets it finish. */
    private static final class SlowReleaseBackend implements LockBackend {
        final CountDownLatch releasing = new CountDownLatch(1);
        final CountDownLatch mayFinish = new CountDownLatch(1);
        final AtomicBoolean held = new AtomicBoolean();

        @Override
        public String name() {
            return "slow-release";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            return held.compareAndSet(false, true)
                    ? Optional.of(Grant.of(request, 1, Instant.now().plusSeconds(60)))
                    : Optional.empty();
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            return Optional.of(grant);
        }

        @Override
        public boolean release(Grant grant) {
            releasing.countDown();
            try {
                mayFinish.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return held.getAndSet(false);
        }

        @Override
        public void close() {}
    }

    @Test
    void theSecondCloseReturnsOnceTheFirstOnesReleaseIsDone() throws Exception {
        SlowReleaseBackend backend = new SlowReleaseBackend();
        try (ClientCore client = new ClientCore(backend, LockOptions.defaults())) {
            Lease lease = client.lock("job").acquire();
            CompletableFuture<Void> first = CompletableFuture.runAsync(lease::close);
            Await.condition(
                    "the release to reach the backend", TestTime.grant(), () -> backend.releasing.getCount() == 0);

            CompletableFuture<Optional<Lease>> second = new CompletableFuture<>();
            Thread closer = new Thread(() -> {
                lease.close();
                second.complete(client.lock("job").tryAcquire());
            });
            closer.start();
            Await.condition(
                    "the second close() to return or to wait",
                    TestTime.grant(),
                    () -> second.isDone()
                            || closer.getState() == Thread.State.TIMED_WAITING
                            || closer.getState() == Thread.State.WAITING);
            assertThat(second)
                    .as("the second close() returned while the first one's release was still running")
                    .isNotDone();

            backend.mayFinish.countDown();
            Await.result(first, TestTime.grant());
            Optional<Lease> again = Await.result(second, TestTime.grant());
            assertThat(again)
                    .as("the lock is free in this client once close() returned")
                    .isPresent();
            again.get().close();
        }
    }
}
