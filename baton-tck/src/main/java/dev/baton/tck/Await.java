package dev.baton.tck;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waiting for a condition with a bound, for the kit and every backend's tests: the condition is
 * checked every 5 ms, and a timeout fails with what was awaited. Tests wait for what they need to
 * see, never for a guessed time. The kit's face of baton-test-support's {@link
 * dev.baton.testsupport.Await}, which baton-core's tests use directly.
 *
 * <p>Every timeout here is lengthened by the CPU stall the machine measured during the wait, up to
 * {@link KitTime#MAX_STRETCH} times the timeout ({@link KitTime.Stopwatch#hasPassed(Duration)}): on
 * an idle machine a wait ends exactly at its timeout; on a busy one, the time the awaited threads
 * could not run is not counted against them.
 */
public final class Await {
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
        dev.baton.testsupport.Await.condition(what, timeout, condition);
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
        dev.baton.testsupport.Await.condition(what, timeout, condition, details);
    }

    /**
     * Takes the elements of {@code queue} as they come until one matches, and returns it; the others
     * are dropped. For the lines a child process prints.
     *
     * @param queue where the elements arrive
     * @param matches the element awaited
     * @param timeout the longest time to wait for it
     * @param failure asked once, on timeout, for the message of the {@link AssertionError}
     * @return the first matching element
     * @throws InterruptedException if interrupted while waiting
     */
    static <T> T next(BlockingQueue<T> queue, Predicate<? super T> matches, Duration timeout, Supplier<String> failure)
            throws InterruptedException {
        return dev.baton.testsupport.Await.next(queue, matches, timeout, failure);
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
        return dev.baton.testsupport.Await.result(future, timeout);
    }
}
