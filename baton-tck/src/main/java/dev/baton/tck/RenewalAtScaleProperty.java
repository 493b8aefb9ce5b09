package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.testsupport.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The kit's renewal-at-scale property ({@link LockBackendContract.RenewalAtScale}): a client holding
 * a few hundred leases keeps them all through a slow link; and the loss of a lease whose renewal
 * hangs is reported at its validity deadline, while that hung call delays neither the loss report
 * nor the renewal of the client's other leases.
 *
 * <p>Why it matters: renewals that run one after another, each waiting for its round trip, cannot
 * keep up with hundreds of leases on a link of a few milliseconds, and a hung call must hold back
 * neither the client's other renewals nor its loss reports.
 */
abstract class RenewalAtScaleProperty {
    /** Lease time of these tests, unless the backend's shortest lease is longer ({@link #lease()}). */
    static final Duration LEASE = Duration.ofSeconds(1);
    /**
     * How many leases one client holds, unless the fixture bounds it: more than one renewal call
     * carries (a backend batches up to 100), and more than one lease time of renewals one after
     * another through the slow link.
     */
    static final int LEASES = 150;
    /**
     * Delay the proxy adds in each direction: 150 renewals one after another through it take longer
     * than a lease, so only renewals that overlap keep up.
     */
    static final Duration ONE_WAY_DELAY = Duration.ofMillis(5);
    /** How late after its validity deadline a loss may be reported: timer wake-up, GC. */
    static final Duration REPORT_SLACK = KitTime.PAST_DEADLINE;

    private final LockBackendContract contract;
    private Duration lease;

    RenewalAtScaleProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    private int leaseCount() {
        return Math.min(LEASES, contract.fixture().heldLeaseLimit());
    }

    /** Settled once per test: every bound of the test counts in the same lease. */
    private Duration lease() {
        if (lease == null) {
            lease = contract.lease(KitTime.lease(LEASE));
        }
        return lease;
    }

    private LockOptions options() {
        return contract.options().withLeaseTime(lease());
    }

    /** Held leases, their names, their tokens at acquisition, and when each was reported lost. */
    private record Held(List<Lease> leases, List<Long> tokens, Map<String, Long> lostAt) {
        static Held acquire(LockClient client, Supplier<String> names, int count, Duration grant) {
            List<Lease> leases = new ArrayList<>(count);
            List<Long> tokens = new ArrayList<>(count);
            Map<String, Long> lostAt = new ConcurrentHashMap<>();
            for (int i = 0; i < count; i++) {
                // A fresh name each (not a common prefix): a Redis Cluster fixture picks names by slot.
                Lease lease = client.lock(names.get()).acquire(grant);
                leases.add(lease);
                tokens.add(lease.fencingToken());
                lease.onLost(lost -> lostAt.putIfAbsent(lease.name(), System.nanoTime()));
            }
            return new Held(leases, tokens, lostAt);
        }

        void release() {
            leases.forEach(Lease::close);
        }
    }

    @Test
    void manyLeasesThroughASlowLinkAreAllKeptForThreeLeasePeriods() {
        TcpProxy proxy = contract.track(TcpProxy.start(contract.fixture().serverAddress()));
        LockClient client = contract.clientAt(contract.fixture().uriVia(proxy.address()), options());
        int count = leaseCount();
        Held held = Held.acquire(client, contract::lockName, count, contract.grant());

        proxy.latency(ONE_WAY_DELAY);
        long until = System.nanoTime() + lease().multipliedBy(3).toNanos();
        while (System.nanoTime() - until < 0) {
            assertThat(held.lostAt()).as("leases reported lost").isEmpty();
            long valid = held.leases().stream().filter(Lease::isValid).count();
            assertThat(valid).as("leases still valid of %d", count).isEqualTo(count);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        for (int i = 0; i < count; i++) {
            Lease lease = held.leases().get(i);
            lease.checkValid();
            assertThat(lease.fencingToken())
                    .as("token of %s", lease.name())
                    .isEqualTo(held.tokens().get(i));
        }
        proxy.latency(Duration.ZERO);
        // Through the proxy too: some fixtures reach another deployment that way (Redlock's logical
        // masters behind one proxy).
        LockClient other = contract.clientAt(contract.fixture().uriVia(proxy.address()), options());
        for (Lease lease : held.leases().subList(0, Math.min(count, 10))) {
            assertThat(other.lock(lease.name()).tryAcquire())
                    .as("%s still held on the backend", lease.name())
                    .isEmpty();
        }
        held.release();
    }

    @Test
    void leasesBehindAPausedLinkAreReportedLostAtTheirValidityDeadline() {
        TcpProxy proxy = contract.track(TcpProxy.start(contract.fixture().serverAddress()));
        LockClient client = contract.clientAt(contract.fixture().uriVia(proxy.address()), options());
        int count = Math.min(leaseCount(), 100);
        Held held = Held.acquire(client, contract::lockName, count, contract.grant());

        // Every validity deadline is at most one lease time after the pause: each counts from a
        // renewal (or the acquisition) sent before it.
        KitTime.Stopwatch paused = KitTime.stopwatch();
        long pausedAt = System.nanoTime();
        proxy.pause();
        Await.condition(
                "all " + count + " leases behind the paused link to be reported lost",
                lease().plus(REPORT_SLACK).plus(KitTime.SLACK),
                () -> held.lostAt().size() == count,
                () -> "; reported " + held.lostAt().size());
        long latestMillis = held.lostAt().values().stream()
                .mapToLong(at -> TimeUnit.NANOSECONDS.toMillis(at - pausedAt))
                .max()
                .orElseThrow();
        assertThat(latestMillis)
                .as(
                        "latest loss report after the pause, in ms (lease %s; renewal calls hang meanwhile; %s)",
                        lease(), paused)
                .isLessThanOrEqualTo(paused.allows(lease().plus(REPORT_SLACK)).toMillis());
        assertThat(held.leases()).noneMatch(Lease::isValid);
        proxy.resume();
        held.release(); // never throws for lost leases
    }

    @Test
    void oneHungRenewalDelaysNeitherItsLossReportNorTheOtherRenewals() {
        RecordingBackend backend = contract.recordingBackend(options());
        LockClient client = contract.track(Baton.open(backend, options()));
        int count = leaseCount();
        Held held = Held.acquire(client, contract::lockName, count, contract.grant());
        Lease victim = held.leases().get(0);

        KitTime.Stopwatch stalled = KitTime.stopwatch();
        long stalledAt = System.nanoTime();
        backend.stallRenewalsOf(victim.name());
        try {
            Await.condition(
                    "the lease whose renewal hangs to be reported lost",
                    lease().plus(REPORT_SLACK).plus(KitTime.SLACK),
                    () -> held.lostAt().containsKey(victim.name()));
            assertThat(TimeUnit.NANOSECONDS.toMillis(held.lostAt().get(victim.name()) - stalledAt))
                    .as(
                            "loss report of the lease whose renewal hangs, in ms after the stall (lease %s; %s)",
                            lease(), stalled)
                    .isLessThanOrEqualTo(
                            stalled.allows(lease().plus(REPORT_SLACK)).toMillis());
            assertThat(victim.isValid()).isFalse();

            // The leases not in the hung call keep being renewed: three lease periods in all.
            long until = stalledAt + lease().multipliedBy(3).toNanos();
            while (System.nanoTime() - until < 0) {
                checkOthersHeld(held, backend);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
            checkOthersHeld(held, backend);
            assertThat(backend.stalledNames)
                    .as("leases in the hung call")
                    .contains(victim.name())
                    .hasSizeLessThanOrEqualTo(backend.renewalBatchSize());
            if (backend.renewalBatchSize() < count) {
                // A backend that renews every due grant in one call (a session-wide check, as on
                // ZooKeeper) may legitimately have them all in the hung call once their renewal groups
                // converged; then every one is reported lost, which the loop above saw in time.
                assertThat(backend.stalledNames).as("leases in the hung call").hasSizeLessThan(count);
            }
        } finally {
            backend.endStall();
        }
        held.release();
    }

    private static void checkOthersHeld(Held held, RecordingBackend backend) {
        for (int i = 0; i < held.leases().size(); i++) {
            Lease lease = held.leases().get(i);
            if (backend.stalledNames.contains(lease.name())) {
                continue;
            }
            assertThat(held.lostAt()).as("leases not in the hung call").doesNotContainKey(lease.name());
            assertThat(lease.isValid())
                    .as("%s, not in the hung call, still valid", lease.name())
                    .isTrue();
            assertThat(lease.fencingToken()).isEqualTo(held.tokens().get(i));
        }
    }
}
