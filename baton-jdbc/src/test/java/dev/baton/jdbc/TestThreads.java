package dev.baton.jdbc;

import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;

/** Waiting for a condition and running a task on its own thread, for the JDBC tests. */
final class TestThreads {
    private TestThreads() {}

    /**
     * {@link Await#condition} bounded by {@link KitTime#grant()}: for a state a few round trips bring
     * about (a thread that starts to wait, a statement that ends).
     */
    static void awaitCondition(String what, BooleanSupplier condition) {
        Await.condition(what, KitTime.grant(), condition);
    }

    /** {@link Await#condition} with a bound of the caller's, built with {@link KitTime}. */
    static void awaitCondition(String what, Duration bound, BooleanSupplier condition) {
        Await.condition(what, bound, condition);
    }

    /**
     * Waits for a waiter's wake-up ({@code woken} counted down): its line's next look at the lock row,
     * or the release's own call, bounded by {@link KitTime#TAKE_OVER}.
     */
    static void awaitWoken(String what, CountDownLatch woken) {
        Await.condition(what, KitTime.bound(KitTime.TAKE_OVER), () -> woken.getCount() == 0);
    }

    /** Runs {@code task} on a new daemon thread; the future holds its result or what it threw. */
    static <T> CompletableFuture<T> inThread(Callable<T> task) {
        CompletableFuture<T> outcome = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                outcome.complete(task.call());
            } catch (Throwable t) {
                outcome.completeExceptionally(t);
            }
        });
        thread.setDaemon(true);
        thread.start();
        return outcome;
    }
}
