package dev.baton.jdbc;

import dev.baton.tck.Await;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/** Waiting for a condition and running a task on its own thread, for the JDBC tests. */
final class TestThreads {
    private TestThreads() {}

    /** {@link Await#condition} with the JDBC tests' bound of 10 s. */
    static void awaitCondition(String what, BooleanSupplier condition) {
        Await.condition(what, Duration.ofSeconds(10), condition);
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
