package dev.baton.jdbc;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waiting for a condition and running a task on its own thread, for the JDBC tests. */
final class TestThreads {
    private TestThreads() {}

    /** Polls {@code condition} every 5 ms; fails after 10 s, naming {@code what}. */
    static void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after 10 s waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
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
