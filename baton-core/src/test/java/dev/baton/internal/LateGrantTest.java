package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Lease;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A grant answered long after its request was sent (a cold or stalled client, a slow server) has
 * little of its validity left, which the core counts from the send: handed out, it would be lost
 * before its first renewal could be answered. The core releases such a grant and asks again while
 * the caller's time lasts.
 */
class LateGrantTest {
    private static final Duration LEASE = Duration.ofSeconds(2);

    /** Grants every request; the first {@code slow} answers take {@code delay} on the test clock. */
    private static final class SlowBackend implements LockBackend {
        final AtomicLong clock;
        final long delayNanos;
        final AtomicInteger slow;
        final AtomicInteger attempts = new AtomicInteger();
        final List<Long> released = new CopyOnWriteArrayList<>();

        SlowBackend(AtomicLong clock, Duration delay, int slow) {
            this.clock = clock;
            this.delayNanos = delay.toNanos();
            this.slow = new AtomicInteger(slow);
        }

        @Override
        public String name() {
            return "slow";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            long token = attempts.incrementAndGet();
            if (slow.getAndDecrement() > 0) {
                clock.addAndGet(delayNanos);
            }
            return Optional.of(Grant.of(request, token, Instant.now().plus(LEASE)));
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            return Optional.of(grant);
        }

        @Override
        public boolean release(Grant grant) {
            released.add(grant.fencingToken());
            return true;
        }

        @Override
        public void close() {}
    }

    private final AtomicLong clock = new AtomicLong();
    private final LockOptions options = LockOptions.builder().leaseTime(LEASE).build();

    @Test
    void aGrantAnsweredWithLessThanHalfItsValidityLeftIsReleasedAndAskedForAgain() {
        SlowBackend backend = new SlowBackend(clock, Duration.ofMillis(1_200), 1);
        try (ClientCore client = new ClientCore(backend, options, clock::get)) {
            try (Lease lease = client.lock("a").acquire(Duration.ofSeconds(5))) {
                assertThat(lease.fencingToken()).isEqualTo(2);
                assertThat(lease.isValid()).isTrue();
                assertThat(backend.released).containsExactly(1L);
            }
        }
        assertThat(backend.released).containsExactly(1L, 2L);
    }

    @Test
    void aGrantAnsweredWithHalfItsValidityLeftIsKept() {
        SlowBackend backend = new SlowBackend(clock, Duration.ofMillis(900), 1);
        try (ClientCore client = new ClientCore(backend, options, clock::get)) {
            try (Lease lease = client.lock("a").acquire(Duration.ofSeconds(5))) {
                assertThat(lease.fencingToken()).isEqualTo(1);
                assertThat(backend.released).isEmpty();
            }
        }
    }

    @Test
    void aTryWithoutTimeLeftReturnsNothingAndLeavesNothingHeld() {
        SlowBackend backend = new SlowBackend(clock, Duration.ofMillis(2_500), 1);
        try (ClientCore client = new ClientCore(backend, options, clock::get)) {
            assertThat(client.lock("a").tryAcquire()).isEmpty();
            assertThat(backend.released).containsExactly(1L);
            assertThat(backend.attempts).hasValue(1);
        }
    }

    /**
     * A cold client's first call (connecting, creating the tables) often answers late; the retry that
     * follows at once costs the caller nothing to act on, so it is no warning.
     */
    @Test
    void oneLateAnswerIsNotWarnedAboutButRepeatedOnesAreWithWhatToDo() {
        String once = stderrOf(() -> {
            SlowBackend backend = new SlowBackend(clock, Duration.ofMillis(1_200), 1);
            try (ClientCore client = new ClientCore(backend, options, clock::get);
                    Lease lease = client.lock("cold").acquire(Duration.ofSeconds(5))) {
                assertThat(lease.fencingToken()).isEqualTo(2);
            }
        });
        assertThat(once).doesNotContain("'cold'");
        String again = stderrOf(() -> {
            SlowBackend backend = new SlowBackend(clock, Duration.ofMillis(1_200), 2);
            try (ClientCore client = new ClientCore(backend, options, clock::get);
                    Lease lease = client.lock("slow").acquire(Duration.ofSeconds(5))) {
                assertThat(lease.fencingToken()).isEqualTo(3);
            }
        });
        assertThat(again.lines().filter(line -> line.contains("'slow'")))
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("WARN")
                        .contains("again with less than half")
                        .contains("raise LockOptions.leaseTime"));
    }

    private static String stderrOf(Runnable body) {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theWaitGoesOnUntilAnAnswerComesInTime() {
        SlowBackend backend = new SlowBackend(clock, Duration.ofMillis(1_500), 3);
        try (ClientCore client = new ClientCore(backend, options, clock::get)) {
            try (Lease lease = client.lock("a").acquire(Duration.ofSeconds(30))) {
                assertThat(lease.fencingToken()).isEqualTo(4);
                assertThat(backend.released).containsExactly(1L, 2L, 3L);
            }
        }
    }

    @Test
    void aWaitWhoseAnswersAllCameTooLateSaysSoWhenItTimesOut() {
        SlowBackend backend = new SlowBackend(clock, Duration.ofMillis(1_500), 100);
        try (ClientCore client = new ClientCore(backend, options, clock::get)) {
            assertThatThrownBy(() -> client.lock("a").acquire(Duration.ofSeconds(3)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("answer came")
                    .hasMessageContaining("1500 ms")
                    .hasMessageNotContaining("another owner holds it");
            assertThat(backend.released).containsExactly(1L, 2L);
        }
    }
}
