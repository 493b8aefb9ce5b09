package dev.baton.locked.internal;

import dev.baton.Lease;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases of {@code @Locked} calls that ended before their {@code lockAtLeastFor}: each is
 * released by this object's one thread when that time is up, so the calling thread does not wait for
 * it. A lease stays bound to the thread that took it until it is released (the client's reentrancy),
 * so {@link #keptFor} tells {@link LockedCall} when a new call on that thread would otherwise reenter
 * a lock that is only being kept. One per application, beside its client.
 *
 * <p>Closed when the application stops, before the client: the leases still kept are released at
 * once (or by the client's own close, whichever comes first).
 */
public final class LockedReleases implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LockedReleases.class);

    /** A kept lease: which lock, on which thread, and when its release happened. */
    private record Kept(String name, Thread thread, CompletableFuture<Void> released) {}

    private final Map<Lease, Kept> kept = new ConcurrentHashMap<>();
    private final ReentrantLock starting = new ReentrantLock();
    private volatile ScheduledExecutorService timer;
    private volatile boolean closed;

    /** Keeps nothing yet; its thread starts on first use. */
    public LockedReleases() {}

    /**
     * Releases {@code lease} {@code delay} from now, on this bean's thread.
     *
     * @param name the lock's name as resolved for the call
     * @param lease the call's lease, held by the current thread
     * @param delay what is left of the call's lockAtLeastFor
     */
    void releaseAfter(String name, Lease lease, Duration delay) {
        Kept entry = new Kept(name, Thread.currentThread(), new CompletableFuture<>());
        kept.put(lease, entry);
        ScheduledExecutorService current = timer();
        if (current == null) {
            release(lease);
            return;
        }
        try {
            current.schedule(() -> release(lease), delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            release(lease); // closed meanwhile: the context is stopping
        }
    }

    /**
     * The release of a lease of {@code name} that the current thread still keeps, if any.
     *
     * @return completes when that lease is released; {@code null} when the thread keeps none
     */
    CompletableFuture<Void> keptFor(String name) {
        Thread thread = Thread.currentThread();
        for (Kept entry : kept.values()) {
            if (entry.thread() == thread && entry.name().equals(name)) {
                return entry.released();
            }
        }
        return null;
    }

    private void release(Lease lease) {
        Kept entry = kept.remove(lease);
        try {
            lease.close();
        } catch (RuntimeException e) {
            log.warn("Baton @Locked: releasing '{}' after its lockAtLeastFor failed: {}", lease.name(), e.toString());
        } finally {
            if (entry != null) {
                entry.released().complete(null);
            }
        }
    }

    /** The timer, started on first use; {@code null} once closed. */
    private ScheduledExecutorService timer() {
        ScheduledExecutorService current = timer;
        if (current != null || closed) {
            return current;
        }
        starting.lock();
        try {
            if (timer == null && !closed) {
                ScheduledThreadPoolExecutor created = new ScheduledThreadPoolExecutor(1, task -> {
                    Thread thread = new Thread(task, "baton-locked-release");
                    thread.setDaemon(true);
                    return thread;
                });
                created.setRemoveOnCancelPolicy(true);
                timer = created;
            }
            return timer;
        } finally {
            starting.unlock();
        }
    }

    /** Releases every kept lease now and stops the thread. */
    @Override
    public void close() {
        starting.lock();
        try {
            closed = true;
        } finally {
            starting.unlock();
        }
        ScheduledExecutorService current = timer;
        if (current != null) {
            current.shutdownNow();
        }
        for (Lease lease : List.copyOf(kept.keySet())) {
            release(lease);
        }
    }
}
