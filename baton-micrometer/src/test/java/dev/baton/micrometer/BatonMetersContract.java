package dev.baton.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockException;
import dev.baton.LockListener;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link BatonMeters} records against a real backend: every meter moves by exactly what the
 * locks did. Subclasses give the backend and a way to take a grant away from outside.
 */
@Timeout(60)
abstract class BatonMetersContract {
    /** Short enough for a few renewals in a second, long enough for a loaded 2-core machine. */
    static final Duration SHORT_LEASE = Duration.ofMillis(900);

    private static final Duration WAIT = Duration.ofMillis(300);

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<LockClient> clients = new ArrayList<>();
    final String name = "invoice-" + UUID.randomUUID();

    /** The backend's URI. */
    abstract String uri();

    /** Takes the grant of {@code lock} away on the backend, as an expiry or an operator would. */
    abstract void deleteFromOutside(String lock);

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    LockClient client(BatonMeters meters) {
        return client(meters, LockOptions.builder());
    }

    LockClient client(BatonMeters meters, LockOptions.Builder options) {
        return connect(uri(), meters, options);
    }

    LockClient connect(String uri, BatonMeters meters) {
        return connect(uri, meters, LockOptions.builder());
    }

    private LockClient connect(String uri, BatonMeters meters, LockOptions.Builder options) {
        LockClient client = Baton.connect(uri, options.listener(meters).build());
        clients.add(client);
        return client;
    }

    private Timer waitTimer(String outcome) {
        return registry.find("baton.lock.wait").tag("outcome", outcome).timer();
    }

    private long waits(String outcome) {
        Timer timer = waitTimer(outcome);
        return timer == null ? 0 : timer.count();
    }

    private long held() {
        Timer timer = registry.find("baton.lock.held").timer();
        return timer == null ? 0 : timer.count();
    }

    private double count(String counter) {
        Counter found = registry.find(counter).counter();
        return found == null ? 0 : found.count();
    }

    private double gauge(String gauge) {
        Gauge found = registry.find(gauge).gauge();
        return found == null ? 0 : found.value();
    }

    @Test
    void anAcquireAHoldAndATimedOutWaiterOnAnotherClient() throws Exception {
        BatonMeters meters = BatonMeters.builder(registry).build();
        LockClient holder = client(meters);

        Lease lease = holder.lock(name).acquire(KitTime.grant());
        long heldFrom = System.nanoTime();
        assertThat(waits("acquired")).isEqualTo(1);
        assertThat(gauge("baton.lock.leases.held")).isEqualTo(1);

        // The gauge is read when the waiter starts waiting, from a listener called after the
        // meters': a poll from this thread could come after the short wait has already ended.
        CompletableFuture<Double> waitingWhileWaiting = new CompletableFuture<>();
        LockListener readsTheGauge = new LockListener() {
            @Override
            public void waitStarted(String lock, String backend) {
                waitingWhileWaiting.complete(gauge("baton.lock.waiting"));
            }
        };
        LockClient waiter = Baton.connect(
                uri(),
                LockOptions.builder().listener(meters).listener(readsTheGauge).build());
        clients.add(waiter);
        assertThatThrownBy(() -> waiter.lock(name).acquire(WAIT)).isInstanceOf(LockTimeoutException.class);
        assertThat(waitingWhileWaiting)
                .as("baton.lock.waiting while the waiter waited")
                .isCompletedWithValue(1.0);
        assertThat(gauge("baton.lock.waiting")).isZero();
        assertThat(waits("timed_out")).isEqualTo(1);
        assertThat(waitTimer("timed_out").totalTime(TimeUnit.NANOSECONDS)).isGreaterThanOrEqualTo(WAIT.toNanos());

        long heldAtLeast = System.nanoTime() - heldFrom;
        lease.close();
        assertThat(held()).isEqualTo(1);
        assertThat(registry.find("baton.lock.held").timer().totalTime(TimeUnit.NANOSECONDS))
                .as("the hold is measured as at least as long as the holder saw it")
                .isGreaterThanOrEqualTo(heldAtLeast)
                .isGreaterThanOrEqualTo(WAIT.toNanos());
        assertThat(gauge("baton.lock.leases.held")).isZero();

        assertThat(waits("acquired")).isEqualTo(1);
        assertThat(waits("interrupted")).isZero();
        assertThat(waits("failed")).isZero();
        assertThat(count("baton.lock.lost")).isZero();
        assertThat(count("baton.lock.renewal.failures")).isZero();
    }

    @Test
    void aTryAcquireOfATakenLockIsTimedOutAndAReentrantAcquireIsNotCounted() {
        BatonMeters meters = BatonMeters.builder(registry).build();
        LockClient client = client(meters);
        LockClient other = client(meters);
        try (Lease outer = client.lock(name).acquire(KitTime.grant());
                Lease inner = client.lock(name).acquire(KitTime.grant())) {
            assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
            assertThat(other.lock(name).tryAcquire()).isEmpty();
            assertThat(waits("acquired")).isEqualTo(1);
            assertThat(waits("timed_out")).isEqualTo(1);
            assertThat(gauge("baton.lock.leases.held")).isEqualTo(1);
            assertThat(gauge("baton.lock.waiting")).isZero();
        }
        assertThat(held()).isEqualTo(1);
        assertThat(gauge("baton.lock.leases.held")).isZero();
    }

    @Test
    void anInterruptedWaiter() throws Exception {
        BatonMeters meters = BatonMeters.builder(registry).build();
        LockClient holder = client(meters);
        LockClient waiter = client(meters);
        try (Lease lease = holder.lock(name).acquire(KitTime.grant())) {
            CompletableFuture<RuntimeException> failure = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    waiter.lock(name).acquire().close();
                    failure.complete(null);
                } catch (RuntimeException e) {
                    failure.complete(e);
                }
            });
            thread.start();
            Await.condition("baton.lock.waiting at 1", KitTime.grant(), () -> gauge("baton.lock.waiting") == 1);
            thread.interrupt();
            assertThat(Await.result(failure, KitTime.grant())).isInstanceOf(LockException.class);
            assertThat(lease.isValid()).isTrue();
        }
        assertThat(waits("interrupted")).isEqualTo(1);
        assertThat(waits("acquired")).isEqualTo(1);
        assertThat(gauge("baton.lock.waiting")).isZero();
        assertThat(gauge("baton.lock.leases.held")).isZero();
    }

    @Test
    void aWaiterBehindAnotherThreadOfTheSameClientThenAcquires() throws Exception {
        BatonMeters meters = BatonMeters.builder(registry).build();
        LockClient client = client(meters);
        Lease first = client.lock(name).acquire(KitTime.grant());
        CompletableFuture<Lease> second =
                CompletableFuture.supplyAsync(() -> client.lock(name).acquire(KitTime.grant()));
        Await.condition("baton.lock.waiting at 1", KitTime.grant(), () -> gauge("baton.lock.waiting") == 1);
        first.close();
        Await.result(second, KitTime.grant()).close();
        assertThat(waits("acquired")).isEqualTo(2);
        assertThat(held()).isEqualTo(2);
        assertThat(gauge("baton.lock.waiting")).isZero();
        assertThat(gauge("baton.lock.leases.held")).isZero();
    }

    @Test
    void renewalsWithAShortLease() {
        BatonMeters meters = BatonMeters.builder(registry).build();
        LockClient client = client(meters, LockOptions.builder().leaseTime(SHORT_LEASE));
        long heldAtLeast;
        try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
            long heldFrom = System.nanoTime();
            Await.condition(
                    "three renewals",
                    KitTime.bound(SHORT_LEASE.multipliedBy(2)),
                    () -> count("baton.lock.renewals") >= 3);
            assertThat(lease.isValid()).isTrue();
            heldAtLeast = System.nanoTime() - heldFrom;
        }
        assertThat(count("baton.lock.renewal.failures")).isZero();
        assertThat(count("baton.lock.lost")).isZero();
        assertThat(held()).isEqualTo(1);
        assertThat(registry.find("baton.lock.held").timer().totalTime(TimeUnit.NANOSECONDS))
                .as("held across three renewals")
                .isGreaterThanOrEqualTo(heldAtLeast);
    }

    @Test
    void aLossProvokedFromOutside() throws Exception {
        BatonMeters meters = BatonMeters.builder(registry).build();
        LockClient client = client(meters, LockOptions.builder().leaseTime(SHORT_LEASE));
        Lease lease = client.lock(name).acquire(KitTime.grant());
        CompletableFuture<Exception> told = new CompletableFuture<>();
        lease.onLost(told::complete);
        deleteFromOutside(name);
        assertThat(Await.result(told, KitTime.bound(SHORT_LEASE))).isNotNull();
        Await.condition("baton.lock.lost at 1", KitTime.grant(), () -> count("baton.lock.lost") == 1);
        assertThat(lease.isValid()).isFalse();
        assertThat(gauge("baton.lock.leases.held"))
                .as("a lost lease counts as held until it is closed")
                .isEqualTo(1);
        lease.close();
        assertThat(gauge("baton.lock.leases.held")).isZero();
        assertThat(held()).isEqualTo(1);
        assertThat(count("baton.lock.lost")).isEqualTo(1);
        assertThat(count("baton.lock.renewal.failures"))
                .as("a renewal the backend refused is a loss, not a failed call")
                .isZero();
    }

    @Test
    void theNameTagIsOptionalAndEveryMeterHasItsBackendDescriptionAndUnit() {
        LockClient plain = client(BatonMeters.builder(registry).build());
        plain.lock(name).acquire(KitTime.grant()).close();
        assertThat(registry.find("baton.lock.wait").tagKeys("lock").timer()).isNull();

        SimpleMeterRegistry tagged = new SimpleMeterRegistry();
        LockClient client = client(BatonMeters.builder(tagged)
                .nameTag(lock -> lock.substring(0, lock.indexOf('-')))
                .build());
        client.lock(name).acquire(KitTime.grant()).close();
        Timer timer = tagged.find("baton.lock.wait")
                .tag("lock", "invoice")
                .tag("outcome", "acquired")
                .tag("backend", client.backendName())
                .timer();
        assertThat(timer).isNotNull();
        assertThat(timer.count()).isEqualTo(1);
        assertThat(tagged.find("baton.lock.held").tag("lock", "invoice").timer())
                .isNotNull();

        for (Meter meter : registry.getMeters()) {
            assertThat(meter.getId().getTag("backend")).isEqualTo(plain.backendName());
            assertThat(meter.getId().getDescription())
                    .as(meter.getId().getName())
                    .isNotBlank();
        }
        assertThat(registry.get("baton.lock.leases.held").gauge().getId().getBaseUnit())
                .isEqualTo("leases");
    }
}
