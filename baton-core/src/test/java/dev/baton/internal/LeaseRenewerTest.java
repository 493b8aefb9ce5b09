package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.testsupport.Await;
import dev.baton.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Renewal in batches, bounded, and loss reported by the clock, against an in-memory backend. */
@Timeout(60)
class LeaseRenewerTest {
    private static final Duration LEASE = Duration.ofMillis(600);

    /** Grants every request; records renewal calls; can hold renewal calls back. */
    private static final class MemoryBackend implements LockBackend {
        final List<Integer> callSizes = new CopyOnWriteArrayList<>();
        /** The client's ticker at each renewal call, and at each grant's last renewal. */
        final List<Long> callTimes = new CopyOnWriteArrayList<>();

        final Map<String, Long> renewedAt = new ConcurrentHashMap<>();
        volatile LongSupplier clock = System::nanoTime;
        final List<String> events = new CopyOnWriteArrayList<>();
        final CountDownLatch unblock = new CountDownLatch(1);
        final CountDownLatch blocked = new CountDownLatch(1);
        volatile boolean blockRenewals;
        private final AtomicLong tokens = new AtomicLong();

        @Override
        public String name() {
            return "memory";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            return Optional.of(
                    Grant.of(request, tokens.incrementAndGet(), Instant.now().plus(request.leaseTime())));
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            return renewAll(List.of(grant), leaseTime).get(0);
        }

        @Override
        public int renewalBatchSize() {
            return 100;
        }

        @Override
        public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
            long at = clock.getAsLong();
            for (Grant grant : grants) {
                renewedAt.put(grant.name(), at);
            }
            callTimes.add(at);
            callSizes.add(grants.size());
            if (blockRenewals) {
                blocked.countDown();
                try {
                    unblock.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            List<Optional<Grant>> renewed = new ArrayList<>();
            for (Grant grant : grants) {
                renewed.add(Optional.of(grant.withExpiresAt(Instant.now().plus(leaseTime))));
            }
            events.add("renewed " + grants.size());
            return renewed;
        }

        @Override
        public boolean release(Grant grant) {
            events.add("released " + grant.name());
            return true;
        }

        @Override
        public void close() {}
    }

    private static LockClient client(MemoryBackend backend) {
        return new ClientCore(
                backend, LockOptions.defaults().toBuilder().leaseTime(LEASE).build());
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition) {
        Await.condition(what, timeout, condition);
    }

    @Test
    void grantsDueTogetherAreRenewedInCallsOfAtMostTheBatchSize() {
        MemoryBackend backend = new MemoryBackend();
        // A clock that stands still while the grants are taken, so that all of them come due at once.
        AtomicLong now = new AtomicLong(System.nanoTime());
        try (LockClient client = new ClientCore(
                backend, LockOptions.defaults().toBuilder().leaseTime(LEASE).build(), now::get)) {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < 250; i++) {
                leases.add(client.lock("lock-" + i).acquire(TestTime.grant()));
            }
            now.addAndGet(LEASE.dividedBy(3).plusMillis(10).toNanos());
            await(
                    "250 renewals",
                    TestTime.grant(),
                    () -> backend.callSizes.stream().mapToInt(Integer::intValue).sum() >= 250);
            assertThat(backend.callSizes).containsExactlyInAnyOrder(100, 100, 50);
            assertThat(leases).allMatch(Lease::isValid);
        }
    }

    @Test
    void grantsTakenAtDifferentMomentsConvergeToFullCallsWithinTwoIntervals() {
        int grants = 1000;
        MemoryBackend backend = new MemoryBackend();
        // The ticker moves only when the test moves it; the timer runs on the ticker's time.
        AtomicLong now = new AtomicLong(0);
        backend.clock = now::get;
        Duration lease = Duration.ofMillis(150);
        long interval = lease.toNanos() / 3;
        try (ClientCore client = new ClientCore(
                backend, LockOptions.defaults().toBuilder().leaseTime(lease).build(), now::get)) {
            Map<String, Long> takenAt = new ConcurrentHashMap<>();
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < grants; i++) {
                // Spread evenly over a whole renewal interval.
                now.set(interval * i / grants);
                takenAt.put("lock-" + i, now.get());
                leases.add(client.lock("lock-" + i).acquire(TestTime.grant()));
            }
            int steps = 20;
            for (long at = interval; at <= 5 * interval; at += interval / steps) {
                now.set(at);
                long time = at;
                await(
                        "every renewal due at " + at + " sent and answered",
                        TestTime.grant(),
                        // Sent (the backend saw it) and answered (the core took the answer in): a grant
                        // whose answer is still on its way when the clock moves on would miss its group.
                        () -> takenAt.keySet().stream()
                                        .allMatch(name ->
                                                backend.renewedAt.getOrDefault(name, takenAt.get(name)) + interval
                                                        > time)
                                && client.renewalsIdle());
            }
            assertThat(leases).allMatch(Lease::isValid);
            int expected = (grants + 99) / 100;
            for (int k = 3; k < 5; k++) {
                long from = k * interval;
                long to = from + interval;
                long calls = backend.callTimes.stream()
                        .filter(t -> t >= from && t < to)
                        .count();
                assertThat(calls)
                        .as("renewal calls in interval %d (%s)", k, backend.callSizes)
                        .isBetween((long) expected, (long) expected + 1);
            }
        }
    }

    @Test
    void lossIsReportedAtTheValidityDeadlineWhileTheRenewalHangsAndALateAnswerDoesNotRevive() throws Exception {
        MemoryBackend backend = new MemoryBackend();
        backend.blockRenewals = true;
        try (LockClient client = client(backend)) {
            TestTime.Stopwatch sinceAcquire = TestTime.stopwatch();
            Lease lease = client.lock("hung").acquire(TestTime.grant());
            CompletableFuture<LockLostException> lost = new CompletableFuture<>();
            lease.onLost(lost::complete);
            Await.condition(
                    "a renewal to block in the backend", TestTime.grant(), () -> backend.blocked.getCount() == 0);

            assertThat(Await.result(lost, TestTime.bound(LEASE))).hasMessageContaining("hung");
            assertThat(sinceAcquire.millis())
                    .as("reported within the lease (%s) plus slack, while the renewal hangs (%s)", LEASE, sinceAcquire)
                    .isLessThan(sinceAcquire.allows(LEASE.plusSeconds(1)).toMillis());
            assertThat(lease.isValid()).isFalse();

            backend.unblock.countDown();
            await("the late renewal answer", TestTime.grant(), () -> backend.events.contains("renewed 1"));
            await(
                    "the late-renewed grant released best-effort",
                    TestTime.grant(),
                    () -> backend.events.contains("released hung"));
            assertThat(lease.isValid())
                    .as("a late answer does not revive a lost lease")
                    .isFalse();
            lease.close(); // never throws for a lost lease
        }
    }

    @Test
    void aRenewalThatHangsAfterOthersAnsweredIsStillReportedLostAtTheDeadline() throws Exception {
        MemoryBackend backend = new MemoryBackend();
        try (LockClient client = client(backend)) {
            Lease lease = client.lock("renewed-then-hung").acquire(TestTime.grant());
            CompletableFuture<LockLostException> lost = new CompletableFuture<>();
            lease.onLost(lost::complete);
            // Renewals that answer move the deadline past where the one watchdog task first looks.
            await("four renewals", TestTime.bound(LEASE.multipliedBy(2)), () -> backend.callSizes.size() >= 4);
            backend.blockRenewals = true;
            Await.condition(
                    "a renewal to block in the backend", TestTime.grant(), () -> backend.blocked.getCount() == 0);
            TestTime.Stopwatch sinceHung = TestTime.stopwatch();

            assertThat(Await.result(lost, TestTime.bound(LEASE))).hasMessageContaining("renewed-then-hung");
            assertThat(sinceHung.millis())
                    .as("reported within the lease (%s) plus slack of the hung renewal (%s)", LEASE, sinceHung)
                    .isLessThan(sinceHung.allows(LEASE.plusSeconds(1)).toMillis());
            assertThat(lease.isValid()).isFalse();
            backend.unblock.countDown();
        }
    }

    @Test
    void releaseWaitsForTheRenewalInFlightSoThatRenewalNeverOutlivesIt() throws Exception {
        MemoryBackend backend = new MemoryBackend();
        backend.blockRenewals = true;
        try (LockClient client = client(backend)) {
            Lease lease = client.lock("held").acquire(TestTime.grant());
            Await.condition(
                    "a renewal to block in the backend", TestTime.grant(), () -> backend.blocked.getCount() == 0);
            Thread releaser = new Thread(lease::close, "releaser");
            releaser.start();
            await(
                    "the release to wait for the renewal",
                    TestTime.grant(),
                    () -> releaser.getState() == Thread.State.WAITING);
            assertThat(backend.events).isEmpty();

            backend.unblock.countDown();
            await("the release to end", TestTime.grant(), () -> !releaser.isAlive());
            assertThat(backend.events).containsExactly("renewed 1", "released held");
        }
    }
}
