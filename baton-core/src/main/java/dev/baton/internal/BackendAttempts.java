package dev.baton.internal;

import dev.baton.LockException;
import dev.baton.LockUnavailableException;
import dev.baton.spi.BlockingWait;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import java.util.Optional;

/**
 * One attempt on the backend for an acquiring thread: a failure becomes the API's {@link
 * LockUnavailableException} (naming the lock and the backend), and an attempt whose outcome is
 * unknown is cleaned up before it is reported.
 */
final class BackendAttempts {
    private BackendAttempts() {}

    /** A blocking wait ({@link BlockingWait}), its failures reported like a queued wait's. */
    static Optional<Grant> block(LockBackend backend, BlockingWait wait, LockRequest request, long timeoutNanos)
            throws InterruptedException {
        try {
            return wait.acquire(request, timeoutNanos);
        } catch (LockException | UnsupportedOperationException e) {
            // Unsupported: the backend refuses the mode (no shared locks); that is not an outage.
            throw e;
        } catch (RuntimeException e) {
            throw unavailable(backend, request, e);
        }
    }

    /** Enters the backend's line; a failure is cleaned up and reported as for {@link #tryOnce}. */
    static WaitQueue.Entry enter(LockBackend backend, WaitQueue queue, LockRequest request, Runnable wake) {
        try {
            return queue.enter(request, wake);
        } catch (UnsupportedOperationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw abandoned(backend, request, e);
        }
    }

    static Optional<Grant> tryOnce(LockBackend backend, LockRequest request) {
        try {
            return backend.tryAcquire(request);
        } catch (UnsupportedOperationException e) {
            // The backend refuses the mode (no shared locks): nothing was attempted, nothing to clean.
            throw e;
        } catch (RuntimeException e) {
            throw abandoned(backend, request, e);
        }
    }

    /** The attempt may have reached the backend: removes whatever it left, then reports it. */
    private static RuntimeException abandoned(LockBackend backend, LockRequest request, RuntimeException e) {
        try {
            backend.abandon(request);
        } catch (RuntimeException cleanup) {
            e.addSuppressed(cleanup);
        }
        return e instanceof LockException ? e : unavailable(backend, request, e);
    }

    private static LockUnavailableException unavailable(LockBackend backend, LockRequest request, RuntimeException e) {
        return new LockUnavailableException(
                "Baton lock '" + request.name() + "' on " + backend.name() + ": the backend failed: " + e, e);
    }
}
