package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import dev.baton.spi.Waiting;
import dev.baton.testsupport.Await;
import dev.baton.testsupport.TestTime;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Release events only shorten a wait: when subscribing or unsubscribing fails (as a Redis client does
 * once it is shut down under a waiter), the waiter keeps polling and ends with its own outcome.
 */
class ReleaseHintsTest {

    /** A lock that another owner always holds; its release events fail as configured. */
    private static final class HeldElsewhere implements LockBackend {
        final AtomicInteger attempts = new AtomicInteger();
        final CountDownLatch subscribed = new CountDownLatch(1);
        volatile boolean subscribeFails;
        volatile boolean unsubscribeFails;

        @Override
        public String name() {
            return "held-elsewhere";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            attempts.incrementAndGet();
            return Optional.empty();
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            return Optional.empty();
        }

        @Override
        public boolean release(Grant grant) {
            return false;
        }

        @Override
        public Waiting waiting(LockKind kind) {
            return Waiting.polling(notifications());
        }

        private ReleaseNotifications notifications() {
            return (name, onRelease) -> {
                subscribed.countDown();
                if (subscribeFails) {
                    throw new IllegalStateException("cannot be started once stopped");
                }
                return () -> {
                    if (unsubscribeFails) {
                        throw new IllegalStateException("cannot be started once stopped");
                    }
                };
            };
        }

        @Override
        public void close() {}
    }

    private final HeldElsewhere backend = new HeldElsewhere();

    private ClientCore client() {
        return new ClientCore(
                backend,
                LockOptions.defaults().toBuilder()
                        .pollInitialDelay(Duration.ofMillis(1))
                        .pollMaxDelay(Duration.ofMillis(5))
                        .build());
    }

    @Test
    void aWaiterWhoseSubscriptionFailsPollsUntilItsTimeout() {
        backend.subscribeFails = true;
        try (ClientCore client = client()) {
            assertThatThrownBy(() -> client.lock("a").acquire(Duration.ofMillis(200)))
                    .isInstanceOf(LockTimeoutException.class);
        }
        assertThat(backend.attempts).as("the waiter kept polling").hasValueGreaterThan(2);
    }

    @Test
    void aFailedUnsubscribeDoesNotReplaceTheWaitersTimeout() {
        backend.unsubscribeFails = true;
        try (ClientCore client = client()) {
            assertThatThrownBy(() -> client.lock("a").acquire(Duration.ofMillis(50)))
                    .isInstanceOf(LockTimeoutException.class);
        }
    }

    @Test
    void aWaiterOfAClientClosedUnderItGetsLockUnavailableEvenIfUnsubscribingFails() throws Exception {
        backend.unsubscribeFails = true;
        ClientCore client = client();
        CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                client.lock("a").acquire().close();
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        Await.condition(
                "the waiter to subscribe to release hints", TestTime.grant(), () -> backend.subscribed.getCount() == 0);
        client.close();
        assertThat(Await.result(outcome, TestTime.grant()))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> client.lock("a").tryAcquire()).isInstanceOf(LockUnavailableException.class);
    }
}
