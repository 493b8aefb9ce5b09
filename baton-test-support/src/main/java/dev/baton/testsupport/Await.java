package dev.baton.testsupport;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waiting for a condition with a bound, on the JDK alone, for the kit (whose {@code Await} delegates
 * here), baton-core's tests and every backend's: the condition is
 * checked every 5 ms, and a timeout fails with what was awaited. Tests wait for what they need to
 * see, never for a guessed time.
 *
 * <p>Every timeout here is lengthened by the CPU stall the machine measured during the wait, up to
 * {@link TestTime#MAX_STRETCH} times the timeout ({@link TestTime.Stopwatch#hasPassed(Duration)}): on
 * an idle machine a wait ends exactly at its timeout; on a busy one, the time the awaited threads
 * could not run is not counted against them.
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
        TestTime.Stopwatch waited = TestTime.stopwatch();
        while (!condition.getAsBoolean()) {
            if (waited.hasPassed(timeout)) {
                throw new AssertionError(
                        "timed out after " + timeout + " (" + waited + ") waiting for: " + what + details.get());
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /**
     * Takes the elements of {@code queue} as they come until one matches, and returns it; the others
     * are dropped. For the lines a child process prints.
     *
     * @param <T> the elements' type
     * @param queue where the elements arrive
     * @param matches the element awaited
     * @param timeout the longest time to wait for it
     * @param failure asked once, on timeout, for the message of the {@link AssertionError}
     * @return the first matching element
     * @throws InterruptedException if interrupted while waiting
     */
    public static <T> T next(
            BlockingQueue<T> queue, Predicate<? super T> matches, Duration timeout, Supplier<String> failure)
            throws InterruptedException {
        TestTime.Stopwatch waited = TestTime.stopwatch();
        while (true) {
            T element = queue.poll(POLL_NANOS * 10, TimeUnit.NANOSECONDS);
            if (element == null) {
                if (waited.hasPassed(timeout)) {
                    throw new AssertionError(failure.get() + " (waited " + waited + ")");
                }
            } else if (matches.test(element)) {
                return element;
            }
        }
    }

    /**
     * The result of {@code future}, waited for as long as {@code timeout} lengthened by the CPU stall
     * measured meanwhile.
     *
     * @param <T> the result's type
     * @param future what is awaited
     * @param timeout the longest time to wait on an idle machine
     * @return the future's result
     * @throws ExecutionException if the future completed exceptionally
     * @throws InterruptedException if interrupted while waiting
     * @throws AssertionError naming {@code timeout} if the future did not complete in time
     */
    public static <T> T result(Future<T> future, Duration timeout) throws ExecutionException, InterruptedException {
        TestTime.Stopwatch waited = TestTime.stopwatch();
        while (true) {
            try {
                return future.get(POLL_NANOS * 10, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                if (waited.hasPassed(timeout)) {
                    throw new AssertionError("no result within " + timeout + " (waited " + waited + ")", e);
                }
            }
        }
    }
}
