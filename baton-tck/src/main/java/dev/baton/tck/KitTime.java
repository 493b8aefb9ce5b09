package dev.baton.tck;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The kit's time bounds, in one place. Every bound a property asserts is built from these: a lease
 * ({@link #LEASE}, raised to the backend's minimum by {@link LockBackendContract#lease(Duration)}),
 * plus {@link #SLACK} for scheduling, plus, where a test waits on another process's progress, the
 * stalls the machine itself measured meanwhile ({@link MachineStalls}). Waits are measured on the
 * monotonic clock ({@link #millisSince(long)}), never the wall clock.
 */
final class KitTime {
    /**
     * Lease time for most tests: short so that expiry tests finish quickly. A backend whose shortest
     * lease is longer ({@link LockBackendFixture#minimumLeaseTime()}) gets that instead.
     */
    static final Duration LEASE = Duration.ofSeconds(2);

    /** Bound on one backend operation in the kit. */
    static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(2);

    /** Tolerance added to every time bound: scheduling on a loaded 2-core machine, JIT, GC. */
    static final Duration SLACK = Duration.ofSeconds(3);

    /**
     * How long after a dead holder's lock came free a client waiting for it must hold it: a waiter's
     * wake-up or next poll plus one grant. Leader election promises a take-over within the freed
     * lease ({@link LockBackendFixture#freedAfter}) plus this.
     */
    static final Duration TAKE_OVER = Duration.ofSeconds(1);

    /** Bound on one kit test as a whole, however it hangs: JUnit fails it after this. */
    static final long TEST_TIMEOUT_SECONDS = 120;

    private KitTime() {}

    /** Milliseconds since {@code startNanos}, a {@link System#nanoTime()} reading. */
    static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
