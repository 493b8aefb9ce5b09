package dev.baton.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The threads of one client's waiters: one timer for every waiter's backoff, fallback attempt and
 * deadline; a small pool that runs asynchronous acquisitions' calls to the backend (and {@link
 * dev.baton.Lease#releaseAsync()}); and, for a backend whose waits are blocking calls, a pool of at
 * most that backend's concurrency. Their number does not grow with the number of waiters: a waiter
 * between two attempts is a timer entry or a line in a gate, not a thread. Threads start on first use
 * and end after a minute idle, so a client that never waits asynchronously has none of them.
 */
final class WaitThreads {
    /** Asynchronous calls to the backend in flight at once; each is bounded by the operation timeout. */
    static final int CALLS = 4;

    private static final long IDLE_SECONDS = 60;

    private final String name;
    private final ScheduledThreadPoolExecutor timer;
    private final ThreadPoolExecutor calls;
    private final ReentrantLock pinnedLock = new ReentrantLock();
    private ThreadPoolExecutor pinned;

    WaitThreads(String name) {
        this.name = name;
        this.timer = new ScheduledThreadPoolExecutor(1, threads(name + "-wait"));
        this.timer.setRemoveOnCancelPolicy(true);
        this.timer.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
        this.timer.allowCoreThreadTimeOut(true);
        this.calls = pool(CALLS, name + "-call");
    }

    /** Runs {@code task} after {@code delayNanos} on the timer thread; it must not block. */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        return timer.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    /** The pool for asynchronous calls to the backend. */
    ExecutorService calls() {
        return calls;
    }

    /**
     * Runs a blocking call of a caller that must not block ({@link dev.baton.Lease#releaseAsync()}) on
     * the calls pool; on the caller's thread once the client is closing.
     */
    CompletableFuture<Void> run(Runnable call) {
        try {
            return CompletableFuture.runAsync(call, calls);
        } catch (RejectedExecutionException e) {
            try {
                call.run();
                return CompletableFuture.completedFuture(null);
            } catch (RuntimeException failure) {
                return CompletableFuture.failedFuture(failure);
            }
        }
    }

    /** The pool for blocking waits of asynchronous acquisitions, made on first use. */
    ExecutorService pinned(int concurrency) {
        pinnedLock.lock();
        try {
            if (pinned == null) {
                pinned = pool(concurrency, name + "-pinned");
            }
            return pinned;
        } finally {
            pinnedLock.unlock();
        }
    }

    /**
     * Stops the threads: queued steps still run (they see the client closed), and calls in flight
     * finish within their operation timeout.
     *
     * @return whether every thread ended within {@code waitMillis}
     */
    boolean stop(long waitMillis) {
        timer.shutdownNow();
        calls.shutdown();
        ThreadPoolExecutor blocking;
        pinnedLock.lock();
        try {
            blocking = pinned;
        } finally {
            pinnedLock.unlock();
        }
        if (blocking != null) {
            blocking.shutdownNow(); // interrupts the blocking waits, which withdraw their requests
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        try {
            boolean ended = timer.awaitTermination(waitMillis, TimeUnit.MILLISECONDS)
                    && calls.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return ended
                    && (blocking == null
                            || blocking.awaitTermination(
                                    Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static ThreadPoolExecutor pool(int size, String name) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                size, size, IDLE_SECONDS, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads(name));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    private static ThreadFactory threads(String name) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
