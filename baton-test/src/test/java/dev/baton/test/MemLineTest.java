package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fair line of {@code mem://} at the SPI, as the core drives it ({@link WaitQueue}): these are
 * the behaviours a backend author's line must have, shown on the reference implementation.
 */
class MemLineTest {
    static final Duration LEASE = Duration.ofSeconds(2);
    static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(LEASE)
            .pollInitialDelay(Duration.ofMillis(5))
            .pollMaxDelay(Duration.ofMillis(50))
            .build();

    private final String namespace = "line-" + UUID.randomUUID().toString().substring(0, 8);
    private final LockBackend backend = Baton.backend(MemLocks.uri(namespace), OPTIONS);

    @AfterEach
    void close() {
        backend.close();
        MemLocks.forget(namespace);
    }

    private static LockRequest request(LockKind kind) {
        return LockRequest.builder("line", UUID.randomUUID().toString().replace("-", ""), kind, LEASE)
                .build();
    }

    /** A waiter in line, and how often it was woken. */
    private final class Waiter {
        final LockRequest request;
        final AtomicInteger wakes = new AtomicInteger();
        final WaitQueue.Entry entry;

        Waiter(LockKind kind) {
            this.request = request(kind);
            this.entry = backend.waiting(kind).queue().enter(request, wakes::incrementAndGet);
            assertThat(entry.grantedOnEntry()).as("%s waits", kind).isEmpty();
        }

        Optional<Grant> attempt() {
            return entry.attempt();
        }
    }

    private Grant take(LockKind kind) {
        return backend.tryAcquire(request(kind)).orElseThrow(() -> new AssertionError(kind + " free"));
    }

    @Test
    void aFreeLockIsGrantedOnEntry() {
        WaitQueue.Entry entry = backend.waiting(LockKind.MUTEX).queue().enter(request(LockKind.MUTEX), () -> {});
        assertThat(entry.grantedOnEntry()).isPresent();
    }

    @Test
    void aReleaseHandsTheLockToTheHeadOfTheLineAndWakesOnlyIt() {
        Grant holder = take(LockKind.MUTEX);
        Waiter first = new Waiter(LockKind.MUTEX);
        Waiter second = new Waiter(LockKind.MUTEX);

        backend.release(holder);
        assertThat(first.wakes).hasValue(1);
        assertThat(second.wakes).as("not its turn: not woken").hasValue(0);
        assertThat(backend.tryAcquire(request(LockKind.MUTEX)))
                .as("an immediate re-acquire finds the lock handed over, not free")
                .isEmpty();
        assertThat(second.attempt()).isEmpty();

        Grant firstGrant = first.attempt().orElseThrow();
        assertThat(firstGrant.fencingToken()).isGreaterThan(holder.fencingToken());
        backend.release(firstGrant);
        assertThat(second.wakes).hasValue(1);
        assertThat(second.attempt()).isPresent();
    }

    @Test
    void aWaiterThatLeavesPassesAHandedLockOn() {
        Grant holder = take(LockKind.MUTEX);
        Waiter first = new Waiter(LockKind.MUTEX);
        Waiter second = new Waiter(LockKind.MUTEX);
        backend.release(holder);

        first.entry.leave(); // timed out, say, just as the lock was handed to it
        assertThat(second.wakes).hasValue(1);
        assertThat(second.attempt()).isPresent();
    }

    @Test
    void aHandedGrantIsValidForWhatIsLeftOfItsLease() {
        Grant holder = take(LockKind.MUTEX);
        Waiter waiter = new Waiter(LockKind.MUTEX);
        backend.release(holder);

        Duration late = Duration.ofMillis(700);
        MemLocks.faults(namespace).advanceClock(late);
        Grant grant = waiter.attempt().orElseThrow();
        assertThat(grant.validity()).isNotNull().isPositive().isLessThanOrEqualTo(LEASE.minus(late));
    }

    @Test
    void aHandedGrantNeverTakenRunsOutWithItsLeaseAndPassesOn() {
        Grant holder = take(LockKind.MUTEX);
        Waiter stuck = new Waiter(LockKind.MUTEX);
        Waiter next = new Waiter(LockKind.MUTEX);
        backend.release(holder);

        MemLocks.faults(namespace).advanceClock(LEASE);
        assertThat(next.attempt()).isEmpty(); // the stuck waiter is still in line, and was handed it again
        assertThat(stuck.wakes).hasValue(2);
        stuck.entry.leave();
        assertThat(next.attempt()).isPresent();
    }

    @Test
    void aReaderDoesNotOvertakeAWaitingWriter() {
        Grant reader = take(LockKind.READ);
        Waiter writer = new Waiter(LockKind.WRITE);
        assertThat(backend.tryAcquire(request(LockKind.READ)))
                .as("a reader while a writer waits")
                .isEmpty();
        Waiter laterReader = new Waiter(LockKind.READ);

        backend.release(reader);
        assertThat(writer.wakes).hasValue(1);
        assertThat(laterReader.wakes).hasValue(0);
        Grant written = writer.attempt().orElseThrow();
        assertThat(laterReader.attempt()).isEmpty();
        backend.release(written);
        assertThat(laterReader.attempt()).isPresent();
    }

    @Test
    void readersWaitingTogetherAreHandedTheLockTogether() {
        Grant writer = take(LockKind.WRITE);
        Waiter first = new Waiter(LockKind.READ);
        Waiter second = new Waiter(LockKind.READ);
        Waiter thirdWriter = new Waiter(LockKind.WRITE);

        backend.release(writer);
        assertThat(first.attempt()).isPresent();
        assertThat(second.attempt()).isPresent();
        assertThat(thirdWriter.wakes).hasValue(0);
    }

    @Test
    void permitsAreHandedOnOneByOne() {
        LockRequest asked = LockRequest.builder(
                        "line", UUID.randomUUID().toString().replace("-", ""), LockKind.PERMIT, LEASE)
                .permits(1)
                .build();
        Grant held = backend.tryAcquire(asked).orElseThrow();
        WaitQueue queue = backend.waiting(LockKind.PERMIT).queue();
        AtomicInteger wakes = new AtomicInteger();
        WaitQueue.Entry waiter = queue.enter(
                LockRequest.builder("line", UUID.randomUUID().toString().replace("-", ""), LockKind.PERMIT, LEASE)
                        .permits(1)
                        .build(),
                wakes::incrementAndGet);
        assertThat(backend.tryAcquire(request(LockKind.MUTEX)))
                .as("a lock of the semaphore's name is another thing")
                .isPresent();
        backend.release(held);
        assertThat(wakes).hasValue(1);
        assertThat(waiter.attempt()).isPresent();
    }

    @Test
    void aWaiterThatStopsCallingIsDroppedSoItCannotHoldTheLine() {
        Grant holder = take(LockKind.MUTEX);
        Waiter silent = new Waiter(LockKind.MUTEX);
        Waiter polling = new Waiter(LockKind.MUTEX);
        backend.release(holder); // handed to the silent one, which never comes for it

        // Dropped after three fallback periods, at least a second; the polling waiter's attempts find it.
        Grant taken = await().atMost(KitTime.bound(Duration.ofSeconds(1)))
                .pollInterval(Duration.ofMillis(50))
                .until(polling::attempt, Optional::isPresent)
                .orElseThrow();
        assertThat(silent.attempt()).as("it joins again, at the back").isEmpty();
        backend.release(taken);
        assertThat(silent.attempt()).isPresent();
    }
}
