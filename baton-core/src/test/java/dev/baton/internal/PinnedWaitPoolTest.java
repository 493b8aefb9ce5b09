package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.baton.Lease;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.Waiting;
import dev.baton.testsupport.Await;
import dev.baton.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Asynchronous waits of a backend whose wait is a blocking call share a pool as large as the
 * connections the backend can pin. A wait that cannot get a pool thread must neither hold up a free
 * lock nor outlive its own timeout: it tries once before it queues, and its time is read when its call
 * starts (or it never starts, when it timed out first).
 */
class PinnedWaitPoolTest {

    /** Locks held by name; a blocking wait blocks until interrupted or its time runs out. */
    private static final class PinnedBackend implements LockBackend {
        final Set<String> held = ConcurrentHashMap.newKeySet();
        final AtomicLong tokens = new AtomicLong();
        final CountDownLatch waiting = new CountDownLatch(1);

        @Override
        public String name() {
            return "pinned";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            return held.add(request.name())
                    ? Optional.of(Grant.of(
                            request, tokens.incrementAndGet(), Instant.now().plusSeconds(30)))
                    : Optional.empty();
        }

        @Override
        public Waiting waiting(LockKind kind) {
            return Waiting.blocking(this::block, 1);
        }

        private Optional<Grant> block(LockRequest request, long timeoutNanos) throws InterruptedException {
            Optional<Grant> now = tryAcquire(request);
            if (now.isPresent()) {
                return now;
            }
            waiting.countDown();
            long until = System.nanoTime() + (timeoutNanos < 0 ? Long.MAX_VALUE / 2 : timeoutNanos);
            while (System.nanoTime() - until < 0) {
                Optional<Grant> grant = tryAcquire(request);
                if (grant.isPresent()) {
                    return grant;
                }
                TimeUnit.MILLISECONDS.sleep(5); // the stand-in for a database's lock wait
            }
            return Optional.empty();
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            return Optional.of(grant);
        }

        @Override
        public boolean release(Grant grant) {
            return held.remove(grant.name());
        }

        @Override
        public void close() {}
    }

    @Test
    void aFreeLockIsNotHeldUpByAWaitThatHasThePoolsOnlyThread() throws Exception {
        PinnedBackend backend = new PinnedBackend();
        try (ClientCore holder = new ClientCore(backend, LockOptions.defaults());
                ClientCore client = new ClientCore(backend, LockOptions.defaults());
                Lease busy = holder.lock("busy").acquire()) {
            CompletableFuture<Lease> waiter = client.lock("busy").acquireAsync(Duration.ofSeconds(30));
            Await.condition(
                    "the pool's one thread to wait in the backend",
                    TestTime.grant(),
                    () -> backend.waiting.getCount() == 0);

            Lease free = Await.result(client.lock("free").acquireAsync(TestTime.grant()), TestTime.grant());
            assertThat(free.isValid())
                    .as("a free lock granted without a pool thread")
                    .isTrue();
            free.close();
            waiter.cancel(false);
        }
    }

    @Test
    void aShortTimeoutEndsAWaitThatWaitsForAPoolThread() throws Exception {
        PinnedBackend backend = new PinnedBackend();
        try (ClientCore holder = new ClientCore(backend, LockOptions.defaults());
                ClientCore client = new ClientCore(backend, LockOptions.defaults());
                ClientCore other = new ClientCore(backend, LockOptions.defaults());
                Lease busy = holder.lock("busy").acquire()) {
            CompletableFuture<Lease> waiter = client.lock("busy").acquireAsync(Duration.ofSeconds(30));
            Await.condition(
                    "the pool's one thread to wait in the backend",
                    TestTime.grant(),
                    () -> backend.waiting.getCount() == 0);
            holder.lock("busy-too").acquire(); // held for the test, by the holder

            CompletableFuture<Lease> short_ = client.lock("busy-too").acquireAsync(Duration.ofMillis(300));
            ExecutionException failed =
                    catchThrowableOfType(() -> Await.result(short_, TestTime.grant()), ExecutionException.class);
            assertThat(failed)
                    .as("ended by its timeout while it waited for the pool's thread")
                    .isNotNull();
            assertThat(failed.getCause()).isInstanceOf(LockTimeoutException.class);
            waiter.cancel(false);
        }
    }
}
