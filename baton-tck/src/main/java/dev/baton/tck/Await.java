package dev.baton.tck;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting for a condition with a bound, for the kit and every backend's tests: the condition is
 * checked every 5 ms, and a timeout fails with what was awaited. Tests wait for what they need to
 * see, never for a guessed time.
 */
public final class Await {
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private Await() {}

    /**
     * Returns once {@code condition} holds; fails with an {@link AssertionError} after {@code timeout}.
     *
     * @param what what is awaited, for the failure message, e.g. {@code "the lease to be lost"}
     * @param timeout the longest time to wait; the condition is checked at least once
     * @param condition checked every 5 ms on the calling thread; must not block
     * @throws AssertionError naming {@code what} and {@code timeout} if the condition did not hold in
     *     time
     */
    public static void condition(String what, Duration timeout, BooleanSupplier condition) {
        condition(what, timeout, condition, () -> "");
    }

    /**
     * As {@link #condition(String, Duration, BooleanSupplier)}, with details for the failure.
     *
     * @param what what is awaited, for the failure message
     * @param timeout the longest time to wait; the condition is checked at least once
     * @param condition checked every 5 ms on the calling thread; must not block
     * @param details asked once, on timeout, to describe what is still in the way; appended to the
     *     message
     * @throws AssertionError naming {@code what}, {@code timeout} and the details if the condition did
     *     not hold in time
     */
    public static void condition(String what, Duration timeout, BooleanSupplier condition, Supplier<String> details) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what + details.get());
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }
}
