package dev.baton.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A connection opened on first use, opened again by the next use after an attempt failed, and
 * refused once closed ({@link RedisNode}'s command connection, {@link RedisChannels}' pub/sub one).
 * Once open, Lettuce keeps it up by itself. A connect that throws at once (its resources were shut
 * down by a concurrent close, or a {@link LinkageError}: Lettuce on a Netty it was not built for)
 * becomes a failed future, so a caller waiting on it sees that failure like any other.
 *
 * @param <C> the connection
 */
final class LazyConnection<C> {
    private final Supplier<CompletableFuture<C>> connect;
    private final ReentrantLock connecting = new ReentrantLock();
    private volatile CompletableFuture<C> current;
    private volatile boolean closed;

    LazyConnection(Supplier<CompletableFuture<C>> connect) {
        this.connect = connect;
    }

    /** The open or opening connection; starts an attempt if there is none or the last one failed. */
    CompletableFuture<C> get() {
        CompletableFuture<C> attempt = current;
        if (attempt != null && !attempt.isCompletedExceptionally()) {
            return attempt;
        }
        connecting.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("the client is closed"));
            }
            attempt = current;
            if (attempt == null || attempt.isCompletedExceptionally()) {
                attempt = started();
                current = attempt;
            }
            return attempt;
        } finally {
            connecting.unlock();
        }
    }

    /** The connection if it is open now, else null; no I/O. */
    C openNow() {
        CompletableFuture<C> attempt = current;
        return attempt != null && attempt.isDone() && !attempt.isCompletedExceptionally() ? attempt.join() : null;
    }

    /** Refuses every later {@link #get()}; returns the latest attempt (or null) for the caller to close. */
    CompletableFuture<C> close() {
        connecting.lock();
        try {
            closed = true;
        } finally {
            connecting.unlock();
        }
        return current;
    }

    private CompletableFuture<C> started() {
        try {
            return connect.get();
        } catch (RuntimeException | LinkageError e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
