package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Lease;
import dev.baton.LockConfigurationException;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Lease#extend}: the lease expires the asked time after the call (not the remaining time plus
 * it), counted on the test clock from the send; a grant the backend no longer has, or whose validity
 * ran out, is lost; bad durations, closed leases and extensions the backend cannot serve are refused.
 */
class LeaseExtendTest {
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration LONGEST = Duration.ofSeconds(10);

    /** Holds grants until their lease time on the test clock; refuses extensions beyond 10 s. */
    private static final class ClockBackend implements LockBackend {
        final AtomicLong clock;
        final Map<String, Long> expiries = new ConcurrentHashMap<>();
        final List<Duration> renewals = new CopyOnWriteArrayList<>();
        final AtomicLong tokens = new AtomicLong();

        ClockBackend(AtomicLong clock) {
            this.clock = clock;
        }

        @Override
        public String name() {
            return "clock";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            expiries.put(request.name(), clock.get() + request.leaseTime().toNanos());
            return Optional.of(Grant.of(
                    request,
                    tokens.incrementAndGet(),
                    Instant.EPOCH.plusNanos(clock.get() + request.leaseTime().toNanos())));
        }

        @Override
        public void checkExtension(String lock, Duration leaseTime, Duration extension) {
            if (extension.compareTo(LONGEST) > 0) {
                throw new LockConfigurationException("Baton lock '" + lock + "' on clock: at most 10 s");
            }
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            renewals.add(leaseTime);
            Long expiry = expiries.get(grant.name());
            if (expiry == null || clock.get() - expiry >= 0) {
                return Optional.empty();
            }
            long until = clock.get() + leaseTime.toNanos();
            expiries.put(grant.name(), until);
            return Optional.of(grant.withExpiresAt(Instant.EPOCH.plusNanos(until)));
        }

        @Override
        public boolean release(Grant grant) {
            return expiries.remove(grant.name()) != null;
        }

        @Override
        public void close() {}
    }

    private final AtomicLong clock = new AtomicLong();
    private final ClockBackend backend = new ClockBackend(clock);
    private final ClientCore client = new ClientCore(
            backend, LockOptions.builder().leaseTime(LEASE).autoRenew(false).build(), clock::get);

    @AfterEach
    void close() {
        client.close();
    }

    private void advance(Duration by) {
        clock.addAndGet(by.toNanos());
    }

    @Test
    void extendsPastTheOriginalLeaseTimeFromTheCallNotFromTheRemainingTime() {
        Lease lease = client.lock("a").acquire(Duration.ofSeconds(1));
        advance(Duration.ofMillis(1_500));
        lease.extend(Duration.ofSeconds(3));

        assertThat(backend.renewals).containsExactly(Duration.ofSeconds(3));
        assertThat(lease.expiresAt()).isEqualTo(Instant.EPOCH.plusMillis(4_500));
        advance(Duration.ofMillis(2_900)); // 4.4 s: past the original 2 s, within 1.5 s + 3 s
        assertThat(lease.isValid()).isTrue();
        advance(Duration.ofMillis(200)); // 4.6 s: the extension is not added to what was left (5 s)
        assertThat(lease.isValid()).isFalse();
        lease.close();
    }

    @Test
    void aShorterExtensionBringsTheExpiryForward() {
        Lease lease = client.lock("a").acquire(Duration.ofSeconds(1));
        lease.extend(Duration.ofMillis(500));
        advance(Duration.ofMillis(600));
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(lease::checkValid).isInstanceOf(LockLostException.class);
        lease.close();
    }

    @Test
    void aGrantTheBackendNoLongerHasIsLostAndReportedOnce() {
        Lease lease = client.lock("a").acquire(Duration.ofSeconds(1));
        List<LockLostException> heard = new CopyOnWriteArrayList<>();
        lease.onLost(heard::add);
        backend.expiries.clear();

        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(3)))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("'a'")
                .hasMessageContaining("no longer has");
        assertThat(lease.isValid()).isFalse();
        assertThat(heard).hasSize(1);
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(3))).isInstanceOf(LockLostException.class);
        assertThat(heard).hasSize(1);
        assertThat(backend.renewals).hasSize(1);
        lease.close();
    }

    @Test
    void aLeaseWhoseValidityRanOutIsLostWithoutAskingTheBackend() {
        Lease lease = client.lock("a").acquire(Duration.ofSeconds(1));
        advance(LEASE);
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(3)))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("elapsed");
        assertThat(backend.renewals).isEmpty();
        lease.close();
    }

    @Test
    void aLossAfterAnExtensionNamesTheExtendedLeaseNotTheLeaseTime() {
        Lease lease = client.lock("a").acquire(Duration.ofSeconds(1));
        lease.extend(Duration.ofSeconds(6));
        advance(Duration.ofMillis(6_100));

        // The client's timer runs on real time and may have reported the expiry already ("elapsed and
        // auto-renewal is off") or not yet ("has elapsed"): either way the message names the extension.
        assertThatThrownBy(lease::checkValid)
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("its extended lease (PT6S, from the last Lease.extend)")
                .hasMessageContaining("elapsed")
                .hasMessageNotContaining("PT2S");
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(3)))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("its extended lease (PT6S, from the last Lease.extend) elapsed")
                .hasMessageNotContaining("PT2S");
        lease.close();
    }

    @Test
    void badDurationsAreRefusedNamingTheLock() {
        Lease lease = client.lock("a").acquire(Duration.ofSeconds(1));
        for (Duration bad : new Duration[] {null, Duration.ZERO, Duration.ofMillis(-1)}) {
            assertThatThrownBy(() -> lease.extend(bad))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("'a'");
        }
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(11)))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("'a'");
        assertThat(backend.renewals).isEmpty();
        assertThat(lease.isValid()).isTrue();
        lease.close();
    }

    @Test
    void aClosedLeaseRefusesToBeExtended() {
        Lease lease = client.lock("a").acquire(Duration.ofSeconds(1));
        lease.close();
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(3)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(backend.renewals).isEmpty();
    }

    @Test
    void anAutoRenewedLeaseIsExtendedByAtLeastItsLeaseTime() {
        LockOptions renewed = LockOptions.builder().leaseTime(LEASE).build();
        try (Lease lease = client.lock("a", renewed).acquire(Duration.ofSeconds(1))) {
            assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(1)))
                    .as("refused like every other bad option, not as IllegalArgumentException")
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("less than its lease time (PT2S)");
            lease.extend(Duration.ofSeconds(5));
            assertThat(backend.renewals).contains(Duration.ofSeconds(5));
            advance(Duration.ofMillis(4_500));
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void aMultiLockExtendsEveryMemberAndIsLostWithAnyOfThem() {
        Lease lease = client.multiLock("a", "b").acquire(Duration.ofSeconds(1));
        advance(Duration.ofMillis(1_500));
        lease.extend(Duration.ofSeconds(3));
        assertThat(backend.renewals).containsExactly(Duration.ofSeconds(3), Duration.ofSeconds(3));
        advance(Duration.ofMillis(2_900));
        assertThat(lease.isValid()).isTrue();

        backend.expiries.remove("b");
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(3)))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("multi-lock");
        assertThat(lease.isValid()).isFalse();
        lease.close();
    }
}
