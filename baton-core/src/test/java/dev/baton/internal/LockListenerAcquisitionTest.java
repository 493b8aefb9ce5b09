package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Lease;
import dev.baton.LockKind;
import dev.baton.LockListener;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.testsupport.Await;
import dev.baton.testsupport.TestTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The long form of the {@link LockListener} events: one {@link LockListener.Acquisition} per acquire
 * call, heard first on the calling thread, and the same instance for every later event of the call
 * and of its grant, with the grant's fencing token; and the short forms still heard through the
 * defaults.
 */
@Timeout(30)
class LockListenerAcquisitionTest {

    /** Records each event with the acquisition it came with. */
    private static final class Pairing implements LockListener {
        record Event(String kind, Acquisition acquisition, Thread thread) {}

        final List<Event> events = new CopyOnWriteArrayList<>();

        private void add(String kind, Acquisition acquisition) {
            events.add(new Event(kind, acquisition, Thread.currentThread()));
        }

        @Override
        public void acquireStarted(Acquisition acquisition) {
            add("started", acquisition);
        }

        @Override
        public void acquireEnded(Acquisition acquisition, AcquireOutcome outcome, Duration waited) {
            add("ended " + outcome + " " + acquisition.fencingToken(), acquisition);
        }

        @Override
        public void waitStarted(Acquisition acquisition) {
            add("waitStarted", acquisition);
        }

        @Override
        public void leaseReleased(Acquisition acquisition, Duration held) {
            add("released", acquisition);
        }

        @Override
        public void renewalFailed(Acquisition acquisition, Throwable cause) {
            add("renewalFailed", acquisition);
        }

        @Override
        public void leaseLost(Acquisition acquisition, LockLostException cause) {
            add("lost", acquisition);
        }

        List<Event> of(Acquisition acquisition) {
            return events.stream().filter(e -> e.acquisition == acquisition).toList();
        }

        long count(String kind) {
            return events.stream().filter(e -> e.kind.startsWith(kind)).count();
        }
    }

    private final LockListenerTest.MemoryBackend backend = new LockListenerTest.MemoryBackend();
    private final Pairing pairing = new Pairing();

    private ClientCore client(Duration leaseTime) {
        return new ClientCore(
                backend,
                LockOptions.builder()
                        .leaseTime(leaseTime)
                        .pollMaxDelay(Duration.ofMillis(20))
                        .listener(pairing)
                        .build());
    }

    private static void await(String what, BooleanSupplier condition) {
        Await.condition(what, TestTime.grant(), condition);
    }

    @Test
    void everyEventOfOneCallAndItsGrantCarriesTheSameAcquisition() {
        Lease lease;
        Duration leaseTime = Duration.ofSeconds(2);
        try (ClientCore client = client(leaseTime)) {
            lease = client.lock("a").acquire();
            assertThat(client.lock("a").tryAcquire()).as("reentrant: no event").isPresent();
            backend.failRenewals = true;
            Await.condition("the loss", TestTime.bound(leaseTime), () -> pairing.count("lost") == 1);
            lease.close();
        }
        LockListener.Acquisition acquisition = pairing.events.get(0).acquisition();
        assertThat(acquisition.lock()).isEqualTo("a");
        assertThat(acquisition.backend()).isEqualTo("memory");
        assertThat(acquisition.kind()).isEqualTo(LockKind.MUTEX);
        assertThat(acquisition.fencingToken()).hasValue(lease.fencingToken());
        assertThat(pairing.of(acquisition)).hasSameSizeAs(pairing.events);
        List<String> kinds =
                pairing.events.stream().map(Pairing.Event::kind).distinct().toList();
        assertThat(kinds)
                .containsExactly(
                        "started",
                        "ended ACQUIRED OptionalLong[" + lease.fencingToken() + "]",
                        "renewalFailed",
                        "lost",
                        "released");
        assertThat(pairing.events.get(0).thread())
                .as("acquireStarted is heard on the calling thread")
                .isSameAs(Thread.currentThread());
    }

    @Test
    void twoCallsHaveTwoAcquisitionsAndACallWithoutAGrantHasNoToken() throws Exception {
        try (ClientCore client = client(Duration.ofSeconds(30))) {
            Lease lease = client.lock("a").acquire();
            CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(
                    () -> client.lock("a").tryAcquire().isPresent());
            assertThat(Await.result(other, TestTime.grant())).isFalse();
            lease.close();
        }
        List<LockListener.Acquisition> started = pairing.events.stream()
                .filter(e -> e.kind().equals("started"))
                .map(Pairing.Event::acquisition)
                .toList();
        assertThat(started).hasSize(2);
        assertThat(started.get(0)).isNotSameAs(started.get(1));
        assertThat(pairing.of(started.get(1)))
                .extracting(Pairing.Event::kind)
                .containsExactly("started", "ended TIMED_OUT OptionalLong.empty");
        assertThat(pairing.of(started.get(0)))
                .extracting(Pairing.Event::kind)
                .containsExactly("started", "ended ACQUIRED OptionalLong[1]", "released");
    }

    @Test
    void anAsynchronousAcquireIsStartedOnTheCallingThread() throws Exception {
        try (ClientCore client = client(Duration.ofSeconds(30))) {
            Await.result(client.lock("a").acquireAsync(), TestTime.grant()).close();
        }
        assertThat(pairing.events.get(0).kind()).isEqualTo("started");
        assertThat(pairing.events.get(0).thread()).isSameAs(Thread.currentThread());
        assertThat(pairing.of(pairing.events.get(0).acquisition())).hasSize(3);
    }
}
