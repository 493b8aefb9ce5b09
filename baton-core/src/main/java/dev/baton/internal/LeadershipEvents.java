package dev.baton.internal;

import dev.baton.LeadershipListener;
import dev.baton.LeadershipListener.Reason;
import dev.baton.LockLostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener thread of one candidacy: events run one at a time, in the order they were queued, on
 * a single worker that exists only while there is work (it ends after a second idle), so an idle
 * candidacy costs no thread. Why a thread of its own: listeners may block for leader work, and must
 * never run on (or hold up) the client's renewal and timer threads, which detect the next loss, nor
 * on the caller's thread, where they would run concurrently with the next event.
 *
 * <p>The listener list and the announced epoch are confined to the worker, so a listener added while
 * a term is announced is told of it in order with every other event.
 */
final class LeadershipEvents {
    private static final Logger log = LoggerFactory.getLogger(LeadershipEvents.class);

    private final String describe;
    private final ThreadPoolExecutor worker;
    /** Confined to the worker. */
    private final List<LeadershipListener> listeners = new ArrayList<>();
    /** The epoch last announced as elected and not yet revoked, 0 for none; confined to the worker. */
    private long announced;

    private volatile Thread current;
    /** The thread the worker made last (it makes one at a time; an idle one ends after a second). */
    private volatile Thread made;

    LeadershipEvents(String describe, String threadName) {
        this.describe = describe;
        this.worker = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            made = thread;
            return thread;
        });
        worker.allowCoreThreadTimeOut(true);
    }

    void add(LeadershipListener listener) {
        submit(() -> {
            listeners.add(listener);
            if (announced != 0) {
                call(listener, "elected", () -> listener.elected(announced));
            }
        });
    }

    void elected(long epoch) {
        submit(() -> {
            announced = epoch;
            for (LeadershipListener listener : List.copyOf(listeners)) {
                call(listener, "elected", () -> listener.elected(epoch));
            }
        });
    }

    /**
     * Queues the revocation of {@code epoch}.
     *
     * @return completes once every listener has been told
     */
    CompletableFuture<Void> revoked(long epoch, Reason reason, LockLostException cause) {
        CompletableFuture<Void> told = new CompletableFuture<>();
        if (!submit(() -> {
            try {
                announced = 0;
                for (LeadershipListener listener : List.copyOf(listeners)) {
                    call(listener, "revoked", () -> listener.revoked(epoch, reason, cause));
                }
            } finally {
                told.complete(null);
            }
        })) {
            told.complete(null);
        }
        return told;
    }

    /** Whether the calling thread is this candidacy's listener thread. */
    boolean onListenerThread() {
        return Thread.currentThread() == current;
    }

    /**
     * No more events; those queued still run. Waits up to {@code waitMillis}, unless called from a
     * listener, until they have run and the listener thread has ended: the executor counts as
     * terminated while its last thread is still on its way out, so that thread is joined too.
     */
    boolean shutdown(long waitMillis) {
        worker.shutdown();
        if (onListenerThread()) {
            return true;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        try {
            if (!worker.awaitTermination(waitMillis, TimeUnit.MILLISECONDS)) {
                return false;
            }
            Thread last = made;
            if (last != null) {
                last.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                return !last.isAlive();
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private boolean submit(Runnable event) {
        try {
            worker.execute(() -> {
                current = Thread.currentThread();
                try {
                    event.run();
                } finally {
                    current = null;
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            log.debug("{}: closed, an event was not delivered", describe);
            return false;
        }
    }

    private void call(LeadershipListener listener, String kind, Runnable call) {
        try {
            call.run();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            log.warn("{}: the leadership listener {} failed in {}; the election goes on", describe, listener, kind, e);
        }
    }
}
