package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.Waiting;
import dev.baton.testsupport.Await;
import dev.baton.testsupport.TestTime;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A backend whose client library cannot run on the application's class path (Lettuce 7 on Netty
 * 4.1) throws a {@link LinkageError}, not an exception, from its calls. The core reports it at once
 * as {@link LockUnavailableException} naming the cause, whatever API was used: it never leaves the
 * caller waiting for an outcome (forever without a timeout), nor turns it into a timeout that blames
 * another owner.
 */
class BackendLinkageErrorTest {
    /** A caller's timeout, well inside {@link #longest()}. */
    private static final Duration WAIT = Duration.ofSeconds(4);

    private static final String MISSING = "io/netty/channel/MultiThreadIoEventLoopGroup";

    /** Every call fails as a client library does when a class it was built against is missing. */
    private static final class MismatchedBackend implements LockBackend {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public String name() {
            return "mismatched";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            calls.incrementAndGet();
            throw new NoClassDefFoundError(MISSING);
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            throw new NoClassDefFoundError(MISSING);
        }

        @Override
        public boolean release(Grant grant) {
            throw new NoClassDefFoundError(MISSING);
        }

        @Override
        public void close() {}
    }

    /** Answers that the lock is held, then fails in its blocking wait, on a pool thread for the async API. */
    private static final class MismatchedBlockingBackend implements LockBackend {
        @Override
        public String name() {
            return "mismatched-blocking";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            return Optional.empty();
        }

        @Override
        public Waiting waiting(LockKind kind) {
            return Waiting.blocking(
                    (request, timeoutNanos) -> {
                        throw new NoClassDefFoundError(MISSING);
                    },
                    1);
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            return Optional.empty();
        }

        @Override
        public boolean release(Grant grant) {
            return true;
        }

        @Override
        public void close() {}
    }

    private static void assertNamesTheClassPath(Throwable failure) {
        assertThat(failure)
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("Baton lock 'job'")
                .hasMessageContaining("NoClassDefFoundError: " + MISSING)
                .hasMessageContaining("class path")
                .hasMessageContaining("dev.baton:baton-bom")
                .hasMessageNotContaining("another owner");
        assertThat(failure).hasRootCauseInstanceOf(NoClassDefFoundError.class);
    }

    /** Runs {@code call} on a thread of its own, so that a call that never returns fails the test. */
    private static Throwable failureOf(ThrowingCall call) throws Exception {
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                outcome.complete(call.run());
            } catch (Throwable e) {
                outcome.completeExceptionally(e);
            }
        });
        thread.setDaemon(true);
        thread.start();
        try {
            Object returned = Await.result(outcome, longest());
            throw new AssertionError("expected a failure, got " + returned);
        } catch (ExecutionException e) {
            return e.getCause();
        } finally {
            thread.interrupt();
        }
    }

    /** Far more than any of these calls needs (each one fails on its first backend call) and than {@link #WAIT}. */
    private static Duration longest() {
        return TestTime.bound(WAIT);
    }

    private interface ThrowingCall {
        Object run() throws Exception;
    }

    @Test
    void tryAcquireFailsAtOnceInsteadOfNeverReturning() throws Exception {
        MismatchedBackend backend = new MismatchedBackend();
        try (LockClient client = Baton.open(backend, LockOptions.defaults())) {
            assertNamesTheClassPath(failureOf(() -> client.lock("job").tryAcquire()));
            assertThat(backend.calls).hasValue(1);
        }
    }

    @Test
    void acquireWithATimeoutFailsAtOnceInsteadOfBlamingAnotherOwner() throws Exception {
        MismatchedBackend backend = new MismatchedBackend();
        try (LockClient client = Baton.open(backend, LockOptions.defaults())) {
            long start = System.nanoTime();
            assertNamesTheClassPath(failureOf(() -> client.lock("job").acquire(WAIT)));
            // It failed on its first call, not when the caller's time ran out.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(WAIT);
            assertThat(backend.calls).hasValue(1);
        }
    }

    @Test
    void theAsynchronousApiFailsItsFuture() throws Exception {
        try (LockClient client = Baton.open(new MismatchedBackend(), LockOptions.defaults())) {
            Throwable tried = failureOf(() -> Await.result(client.lock("job").tryAcquireAsync(), longest()));
            assertThat(tried).isInstanceOf(ExecutionException.class);
            assertNamesTheClassPath(tried.getCause());
            Throwable waited = failureOf(() -> Await.result(client.lock("job").acquireAsync(WAIT), longest()));
            assertThat(waited).isInstanceOf(ExecutionException.class);
            assertNamesTheClassPath(waited.getCause());
        }
    }

    @Test
    void anErrorInABlockingWaitOnThePoolEndsTheAcquisition() throws Exception {
        try (LockClient client = Baton.open(new MismatchedBlockingBackend(), LockOptions.defaults())) {
            Throwable waited = failureOf(() -> Await.result(client.lock("job").acquireAsync(WAIT), longest()));
            assertThat(waited).isInstanceOf(ExecutionException.class);
            assertNamesTheClassPath(waited.getCause());
            assertThatThrownBy(() -> client.lock("job").acquire(Duration.ofMillis(1)))
                    .satisfies(BackendLinkageErrorTest::assertNamesTheClassPath);
        }
    }
}
