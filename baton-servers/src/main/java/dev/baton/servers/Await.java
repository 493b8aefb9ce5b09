package dev.baton.servers;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Polling of child processes that tell us nothing unasked (a replica in sync, a failover done): the
 * condition is asked again with a growing pause (5 ms up to 100 ms) until it holds or the time is up.
 */
final class Await {
    private Await() {}

    /**
     * Polls {@code condition} until it holds; a poll that throws {@link IllegalStateException} (a node
     * that does not answer yet) counts as not yet.
     *
     * @param details what to add to the failure's message, asked only when the time is up
     * @throws IllegalStateException when {@code timeout} passed (naming {@code what}, with {@code
     *     details} and the last poll's failure suppressed) or the thread was interrupted
     */
    static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> details) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = TimeUnit.MILLISECONDS.toNanos(5);
        RuntimeException last = null;
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (IllegalStateException e) {
                last = e;
            }
            if (System.nanoTime() - deadline > 0) {
                String detail;
                try {
                    detail = details.get();
                } catch (RuntimeException e) {
                    detail = "; (could not ask: " + e.getMessage() + ")";
                }
                IllegalStateException failure = new IllegalStateException(
                        "timed out after " + timeout.toMillis() + " ms waiting for " + what + detail);
                if (last != null) {
                    failure.addSuppressed(last);
                }
                throw failure;
            }
            LockSupport.parkNanos(pause);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what);
            }
            pause = Math.min(TimeUnit.MILLISECONDS.toNanos(100), pause * 2);
        }
    }
}
