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
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An automatic renewal that comes due while {@link Lease#extend} talks to the backend skips this
 * round (the extension holds the grant) but is scheduled again, so auto-renewal goes on afterwards.
 */
@Timeout(60)
class ExtendDuringRenewalTest {
    private static final Duration LEASE = Duration.ofMillis(600);

    /** Extensions ({@link #renew}) wait for {@link #finishExtension}; renewals ({@link #renewAll}) are counted. */
    private static final class BlockingBackend implements LockBackend {
        final CountDownLatch extending = new CountDownLatch(1);
        final CountDownLatch finishExtension = new CountDownLatch(1);
        final AtomicInteger renewals = new AtomicInteger();

        @Override
        public String name() {
            return "blocking";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            return Optional.of(Grant.of(request, 1, Instant.now().plus(LEASE)));
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            extending.countDown();
            try {
                finishExtension.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Optional.of(grant.withExpiresAt(Instant.now().plus(leaseTime)));
        }

        @Override
        public int renewalBatchSize() {
            return 10;
        }

        @Override
        public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
            renewals.incrementAndGet();
            return grants.stream()
                    .map(grant -> Optional.of(grant.withExpiresAt(Instant.now().plus(leaseTime))))
                    .toList();
        }

        @Override
        public boolean release(Grant grant) {
            return true;
        }

        @Override
        public void close() {}
    }

    private static void await(String what, BooleanSupplier condition) {
        Await.condition(what, TestTime.grant(), condition);
    }

    @Test
    void aRenewalDueDuringAnExtensionIsScheduledAgain() throws Exception {
        BlockingBackend backend = new BlockingBackend();
        AtomicLong now = new AtomicLong();
        // The renewal threads read the clock only once they took the grant, or found it taken.
        AtomicInteger clockReadByRenewalCalls = new AtomicInteger();
        Ticker ticker = () -> {
            if (Thread.currentThread().getName().contains("-call-")) {
                clockReadByRenewalCalls.incrementAndGet();
            }
            return now.get();
        };
        try (ClientCore client = new ClientCore(
                backend, LockOptions.defaults().toBuilder().leaseTime(LEASE).build(), ticker)) {
            Lease lease = client.lock("a").acquire(TestTime.grant());
            CompletableFuture<Void> extension = CompletableFuture.runAsync(() -> lease.extend(LEASE));
            Await.condition(
                    "the extension to reach the backend", TestTime.grant(), () -> backend.extending.getCount() == 0);

            now.set(LEASE.dividedBy(3).plusMillis(50).toNanos()); // the first renewal is due
            await("the due renewal found the grant taken by the extension", () -> clockReadByRenewalCalls.get() > 0);
            assertThat(backend.renewals).hasValue(0);
            backend.finishExtension.countDown();
            Await.result(extension, TestTime.grant());

            for (int round = 1; round <= 3; round++) {
                now.addAndGet(LEASE.dividedBy(3).plusMillis(50).toNanos());
                int expected = round;
                await("automatic renewal " + round + " after the extension", () -> backend.renewals.get() >= expected);
                await("renewal " + round + " answered", client::renewalsIdle);
                assertThat(lease.isValid()).isTrue();
            }
            lease.close();
        }
    }
}
