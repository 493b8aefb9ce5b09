package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Lease;
import dev.baton.LockConfigurationException;
import dev.baton.LockException;
import dev.baton.LockListener;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.testsupport.Await;
import dev.baton.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The order and the counts of the events a client's {@link LockListener}s hear, and that a listener
 * that throws never breaks locking; against an in-memory backend shared by several clients.
 */
@Timeout(30)
class LockListenerTest {
    private static final Duration SHORT_LEASE = Duration.ofMillis(450);

    /** One owner per name; renewals can be made to fail or be refused. */
    static final class MemoryBackend implements LockBackend {
        final Map<String, String> owners = new ConcurrentHashMap<>();
        volatile boolean failAcquire;
        volatile boolean failRenewals;
        volatile boolean refuseRenewals;
        private final AtomicLong tokens = new AtomicLong();

        @Override
        public String name() {
            return "memory";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            if (failAcquire) {
                throw new LockUnavailableException("memory: down");
            }
            if (owners.putIfAbsent(request.name(), request.ownerId()) != null) {
                return Optional.empty();
            }
            return Optional.of(
                    Grant.of(request, tokens.incrementAndGet(), Instant.now().plus(request.leaseTime())));
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            if (failRenewals) {
                throw new LockUnavailableException("memory: renewal failed");
            }
            if (refuseRenewals || !grant.ownerId().equals(owners.get(grant.name()))) {
                return Optional.empty();
            }
            return Optional.of(grant.withExpiresAt(Instant.now().plus(leaseTime)));
        }

        @Override
        public boolean release(Grant grant) {
            return owners.remove(grant.name(), grant.ownerId());
        }

        @Override
        public void close() {}
    }

    /** Records every event as a line, in order. */
    private static final class Recorder implements LockListener {
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<Duration> waits = new CopyOnWriteArrayList<>();
        final List<Duration> holds = new CopyOnWriteArrayList<>();
        final CountDownLatch waiting = new CountDownLatch(1);

        @Override
        public void acquireEnded(String lock, String backend, AcquireOutcome outcome, Duration waited) {
            events.add(outcome + " " + lock + " on " + backend);
            waits.add(waited);
        }

        @Override
        public void waitStarted(String lock, String backend) {
            events.add("waitStarted " + lock);
            waiting.countDown();
        }

        @Override
        public void waitEnded(String lock, String backend) {
            events.add("waitEnded " + lock);
        }

        @Override
        public void leaseReleased(String lock, String backend, Duration held) {
            events.add("released " + lock);
            holds.add(held);
        }

        @Override
        public void renewed(String lock, String backend) {
            events.add("renewed " + lock);
        }

        @Override
        public void renewalFailed(String lock, String backend, Throwable cause) {
            events.add("renewalFailed " + lock);
        }

        @Override
        public void leaseLost(String lock, String backend, LockLostException cause) {
            events.add("lost " + lock);
        }

        long count(String prefix) {
            return events.stream().filter(event -> event.startsWith(prefix)).count();
        }
    }

    /** Throws from every callback. */
    private static final class Throwing implements LockListener {
        @Override
        public void acquireEnded(String lock, String backend, AcquireOutcome outcome, Duration waited) {
            throw new IllegalStateException("listener bug");
        }

        @Override
        public void waitStarted(String lock, String backend) {
            throw new IllegalStateException("listener bug");
        }

        @Override
        public void waitEnded(String lock, String backend) {
            throw new AssertionError("listener bug");
        }

        @Override
        public void leaseReleased(String lock, String backend, Duration held) {
            throw new IllegalStateException("listener bug");
        }

        @Override
        public void renewed(String lock, String backend) {
            throw new IllegalStateException("listener bug");
        }

        @Override
        public void renewalFailed(String lock, String backend, Throwable cause) {
            throw new IllegalStateException("listener bug");
        }

        @Override
        public void leaseLost(String lock, String backend, LockLostException cause) {
            throw new IllegalStateException("listener bug");
        }
    }

    private final MemoryBackend backend = new MemoryBackend();
    private final Recorder recorder = new Recorder();

    private ClientCore client(LockListener... listeners) {
        return client(Duration.ofSeconds(30), listeners);
    }

    private ClientCore client(Duration leaseTime, LockListener... listeners) {
        LockOptions.Builder options = LockOptions.builder().leaseTime(leaseTime).pollMaxDelay(Duration.ofMillis(20));
        for (LockListener listener : listeners) {
            options.listener(listener);
        }
        return new ClientCore(backend, options.build());
    }

    private static void await(String what, BooleanSupplier condition) {
        Await.condition(what, TestTime.grant(), condition);
    }

    @Test
    void anAcquireAndItsReleaseAreReportedOnceEachInOrder() {
        try (ClientCore client = client(recorder)) {
            client.lock("a").acquire(TestTime.grant()).close();
            client.lock("a").tryAcquire().orElseThrow().close();
        }
        assertThat(recorder.events)
                .containsExactly("ACQUIRED a on memory", "released a", "ACQUIRED a on memory", "released a");
        assertThat(recorder.holds).allMatch(held -> !held.isNegative());
    }

    @Test
    void reentrantHoldsAreNotReportedOnlyTheLastReleaseIs() {
        try (ClientCore client = client(recorder)) {
            Lease outer = client.lock("a").acquire();
            client.lock("a").lock();
            Lease inner = client.lock("a").acquire(TestTime.grant());
            assertThat(client.lock("a").tryLock()).isTrue();
            assertThat(recorder.events).containsExactly("ACQUIRED a on memory");
            client.lock("a").unlock();
            client.lock("a").unlock();
            inner.close();
            assertThat(recorder.events).containsExactly("ACQUIRED a on memory");
            outer.close();
        }
        assertThat(recorder.events).containsExactly("ACQUIRED a on memory", "released a");
    }

    @Test
    void aWaiterOnAnotherClientThatTimesOutReportsItsWaitAndTimedOut() {
        try (ClientCore holder = client();
                ClientCore waiter = client(recorder)) {
            try (Lease lease = holder.lock("a").acquire()) {
                assertThat(waiter.lock("a").tryAcquire()).isEmpty();
                assertThatThrownBy(() -> waiter.lock("a").acquire(Duration.ofMillis(150)))
                        .isInstanceOf(LockTimeoutException.class);
                assertThat(lease.isValid()).isTrue();
            }
        }
        assertThat(recorder.events)
                .containsExactly("TIMED_OUT a on memory", "waitStarted a", "waitEnded a", "TIMED_OUT a on memory");
        assertThat(recorder.waits.get(1)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
    }

    @Test
    void aWaiterBehindAnotherThreadOfItsClientWaitsThenAcquires() throws Exception {
        try (ClientCore client = client(recorder)) {
            Lease first = client.lock("a").acquire();
            CompletableFuture<Lease> second =
                    CompletableFuture.supplyAsync(() -> client.lock("a").acquire(TestTime.grant()));
            Await.condition("the waiter to start waiting", TestTime.grant(), () -> recorder.waiting.getCount() == 0);
            first.close();
            Await.result(second, TestTime.grant()).close();
        }
        // The first release is reported after the lock was handed on, so it may come before or after
        // the waiter's own events; each thread's events are in order.
        List<String> events = recorder.events;
        assertThat(events)
                .containsExactlyInAnyOrder(
                        "ACQUIRED a on memory",
                        "waitStarted a",
                        "released a",
                        "waitEnded a",
                        "ACQUIRED a on memory",
                        "released a");
        assertThat(events.subList(0, 2)).containsExactly("ACQUIRED a on memory", "waitStarted a");
        assertThat(events.subList(2, 5)).containsSubsequence("waitEnded a", "ACQUIRED a on memory");
        assertThat(events.get(5)).isEqualTo("released a");
    }

    @Test
    void anInterruptedWaiterReportsInterrupted() throws Exception {
        try (ClientCore holder = client();
                ClientCore waiter = client(recorder)) {
            try (Lease lease = holder.lock("a").acquire()) {
                CompletableFuture<Throwable> failure = new CompletableFuture<>();
                Thread thread = new Thread(() -> {
                    try {
                        waiter.lock("a").acquire();
                        failure.complete(null);
                    } catch (RuntimeException e) {
                        failure.complete(e);
                    }
                });
                thread.start();
                Await.condition(
                        "the waiter to start waiting", TestTime.grant(), () -> recorder.waiting.getCount() == 0);
                thread.interrupt();
                assertThat(Await.result(failure, TestTime.grant())).isInstanceOf(LockException.class);
                assertThat(lease.isValid()).isTrue();
            }
        }
        assertThat(recorder.events).containsExactly("waitStarted a", "waitEnded a", "INTERRUPTED a on memory");
    }

    @Test
    void aBackendFailureReportsFailedAndNoWait() {
        backend.failAcquire = true;
        try (ClientCore client = client(recorder)) {
            assertThatThrownBy(() -> client.lock("a").acquire(Duration.ofSeconds(1)))
                    .isInstanceOf(LockUnavailableException.class);
        }
        assertThat(recorder.events).containsExactly("FAILED a on memory");
    }

    @Test
    void renewalsAreReportedPerGrant() {
        try (ClientCore client = client(SHORT_LEASE, recorder)) {
            Lease lease = client.lock("a").acquire();
            await("two renewals", () -> recorder.count("renewed a") >= 2);
            assertThat(lease.isValid()).isTrue();
            lease.close();
        }
        assertThat(recorder.events.get(0)).isEqualTo("ACQUIRED a on memory");
        assertThat(recorder.events.subList(1, recorder.events.size() - 1)).allMatch("renewed a"::equals);
        assertThat(recorder.events.get(recorder.events.size() - 1)).isEqualTo("released a");
    }

    /**
     * A lease of two seconds: its first renewal is due after a third of it, and the loss is reported at
     * its end, so a renewal thread the machine does not run for over a second still fails (and is
     * reported) before the loss; a shorter lease leaves a stalled renewal thread too little time.
     */
    @Test
    void failingRenewalsAreReportedThenTheLossThenTheRelease() {
        Duration leaseTime = Duration.ofSeconds(2);
        try (ClientCore client = client(leaseTime, recorder)) {
            Lease lease = client.lock("a").acquire();
            backend.failRenewals = true;
            Await.condition("the loss", TestTime.bound(leaseTime), () -> recorder.count("lost a") == 1);
            lease.close();
        }
        List<String> events = recorder.events;
        assertThat(events.get(0)).isEqualTo("ACQUIRED a on memory");
        assertThat(recorder.count("renewalFailed a")).isPositive();
        assertThat(recorder.count("lost a")).isEqualTo(1);
        assertThat(events.indexOf("lost a")).isGreaterThan(events.indexOf("renewalFailed a"));
        assertThat(events.get(events.size() - 1)).isEqualTo("released a");
        assertThat(recorder.count("released a")).isEqualTo(1);
    }

    @Test
    void aRefusedRenewalIsALossNotARenewalFailure() {
        try (ClientCore client = client(SHORT_LEASE, recorder)) {
            Lease lease = client.lock("a").acquire();
            backend.refuseRenewals = true;
            await("the loss", () -> recorder.count("lost a") == 1);
            assertThat(lease.isValid()).isFalse();
            lease.close();
        }
        assertThat(recorder.events).containsExactly("ACQUIRED a on memory", "lost a", "released a");
    }

    @Test
    void aLossFoundAtReleaseIsReportedBeforeTheRelease() {
        try (ClientCore client = client(recorder)) {
            Lease lease = client.lock("a").acquire();
            backend.owners.clear(); // the grant vanished from the backend while held
            lease.close();
        }
        assertThat(recorder.events).containsExactly("ACQUIRED a on memory", "lost a", "released a");
    }

    @Test
    void closingTheClientReportsTheReleaseOfWhatItHeld() {
        ClientCore client = client(recorder);
        client.lock("a").acquire();
        client.lock("b").acquire();
        client.close();
        assertThat(recorder.count("released ")).isEqualTo(2);
    }

    @Test
    void aThrowingListenerNeverBreaksLockingAndTheOthersStillHear() throws Exception {
        try (ClientCore holder = client();
                ClientCore client = client(SHORT_LEASE, new Throwing(), recorder)) {
            Lease lease = client.lock("a").acquire(TestTime.grant());
            await("a renewal", () -> recorder.count("renewed a") >= 1);
            assertThat(lease.isValid()).isTrue();
            lease.close();
            try (Lease held = holder.lock("b").acquire()) {
                assertThatThrownBy(() -> client.lock("b").acquire(Duration.ofMillis(50)))
                        .isInstanceOf(LockTimeoutException.class);
                assertThat(held.isValid()).isTrue();
            }
            Lease lost = client.lock("c").acquire();
            backend.refuseRenewals = true;
            CompletableFuture<LockLostException> heard = new CompletableFuture<>();
            lost.onLost(heard::complete);
            assertThat(Await.result(heard, TestTime.bound(SHORT_LEASE))).isNotNull();
            lost.close();
            backend.refuseRenewals = false;
            assertThat(client.lock("a").tryAcquire()).isPresent();
        }
        assertThat(recorder.events)
                .contains(
                        "ACQUIRED a on memory",
                        "renewed a",
                        "released a",
                        "waitStarted b",
                        "waitEnded b",
                        "TIMED_OUT b on memory",
                        "lost c",
                        "released c");
    }

    @Test
    void listenersAreValidatedAndKeptByTheBuilder() {
        assertThatThrownBy(() -> LockOptions.builder().listener(null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("listener");
        LockOptions options = LockOptions.builder().listener(recorder).build();
        assertThat(options.listeners()).containsExactly(recorder);
        assertThat(options.withLeaseTime(Duration.ofSeconds(3)).listeners()).containsExactly(recorder);
        assertThat(LockOptions.defaults().listeners()).isEmpty();
    }
}
