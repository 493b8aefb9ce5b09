package dev.baton.internal;

import dev.baton.LockException;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import java.util.Optional;

/**
 * One attempt on the backend for an acquiring thread: a failure becomes the API's {@link
 * LockUnavailableException} (naming the lock and the backend), and an attempt whose outcome is
 * unknown is cleaned up before it is reported.
 */
final class BackendAttempts {
    private BackendAttempts() {}

    static Optional<Grant> queue(LockBackend backend, LockRequest request, long timeoutNanos)
            throws InterruptedException {
        try {
            return backend.acquire(request, timeoutNanos);
        } catch (LockException | UnsupportedOperationException e) {
            // Unsupported: the backend refuses the mode (no shared locks); that is not an outage.
            throw e;
        } catch (RuntimeException e) {
            throw new LockUnavailableException(
                    "Baton lock '" + request.name() + "' on " + backend.name() + ": the backend failed: " + e, e);
        }
    }

    static Optional<Grant> tryOnce(LockBackend backend, LockRequest request) {
        try {
            return backend.tryAcquire(request);
        } catch (UnsupportedOperationException e) {
            // The backend refuses the mode (no shared locks): nothing was attempted, nothing to clean.
            throw e;
        } catch (RuntimeException e) {
            // The attempt may have reached the backend: remove whatever it left before reporting.
            try {
                backend.abandon(request);
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            if (e instanceof LockException) {
                throw e;
            }
            throw new LockUnavailableException(
                    "Baton lock '" + request.name() + "' on " + backend.name() + ": the backend failed: " + e, e);
        }
    }
}
