package dev.baton.tck;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A thread blocked in an acquisition; its outcome is null on success or what it threw, and its
 * interrupt flag is recorded when it throws (1 set, 0 clear, -1 not thrown).
 */
record Waiter(Thread thread, CompletableFuture<Throwable> outcome, AtomicInteger interruptFlag) {

    /** An acquisition that may throw anything. */
    @FunctionalInterface
    interface Acquisition {
        void run() throws Exception;
    }

    /**
     * Starts {@code acquisition} on a new thread and returns once that thread waits for the lock, which
     * takes it one attempt on the backend ({@code firstAttempt} at most).
     */
    static Waiter start(Acquisition acquisition, Duration firstAttempt) {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        AtomicInteger interruptFlag = new AtomicInteger(-1);
        Thread thread = new Thread(() -> {
            try {
                acquisition.run();
                outcome.complete(null);
            } catch (Throwable t) {
                interruptFlag.set(Thread.currentThread().isInterrupted() ? 1 : 0);
                outcome.complete(t);
            }
        });
        thread.setDaemon(true);
        thread.start();
        awaitWaiting(thread, firstAttempt);
        return new Waiter(thread, outcome, interruptFlag);
    }

    private static void awaitWaiting(Thread thread, Duration firstAttempt) {
        Await.condition(
                "thread " + thread.getName() + " to wait for the lock",
                firstAttempt,
                () -> thread.getState() == Thread.State.WAITING || thread.getState() == Thread.State.TIMED_WAITING);
    }
}
