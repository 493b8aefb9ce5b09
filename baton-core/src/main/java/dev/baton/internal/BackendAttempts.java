package dev.baton.internal;

import dev.baton.LockException;
import dev.baton.LockUnavailableException;
import dev.baton.spi.BlockingWait;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt on the backend for an acquiring thread: a failure becomes the API's {@link
 * LockUnavailableException} (naming the lock and the backend), and an attempt whose outcome is
 * unknown is cleaned up in the background while it is reported: a backend that cannot be reached
 * would make the cleanup wait a second operation timeout, and the caller was promised one.
 *
 * <p>A {@link LinkageError} from the backend (its client library finds a class or method missing,
 * as when the application's build pins a dependency of that library to a line it was not built
 * for) is a failure of the attempt like any other: it is reported at once, never swallowed, since
 * every later attempt fails the same way.
 */
final class BackendAttempts {
    private static final Logger log = LoggerFactory.getLogger(BackendAttempts.class);

    private BackendAttempts() {}

    /** A blocking wait ({@link BlockingWait}), its failures reported like a queued wait's. */
    static Optional<Grant> block(LockBackend backend, BlockingWait wait, LockRequest request, long timeoutNanos)
            throws InterruptedException {
        try {
            return wait.acquire(request, timeoutNanos);
        } catch (LockException | UnsupportedOperationException e) {
            // Unsupported: the backend refuses the mode (no shared locks); that is not an outage.
            throw e;
        } catch (RuntimeException | LinkageError e) {
            throw unavailable(backend, request, e);
        }
    }

    /** Enters the backend's line; a failure is cleaned up and reported as for {@link #tryOnce}. */
    static WaitQueue.Entry enter(ClientCore client, WaitQueue queue, LockRequest request, Runnable wake) {
        try {
            return queue.enter(request, wake);
        } catch (UnsupportedOperationException e) {
            throw e;
        } catch (RuntimeException | LinkageError e) {
            throw abandoned(client, request, e);
        }
    }

    static Optional<Grant> tryOnce(ClientCore client, LockRequest request) {
        try {
            return client.backend.tryAcquire(request);
        } catch (UnsupportedOperationException e) {
            // The backend refuses the mode (no shared locks): nothing was attempted, nothing to clean.
            throw e;
        } catch (RuntimeException | LinkageError e) {
            throw abandoned(client, request, e);
        }
    }

    /**
     * The attempt may have reached the backend: reports it at once and removes whatever it left on
     * a call thread. The owner id is this acquisition's alone and the acquisition ends here, so the
     * cleanup can touch nothing granted later; if it fails, the leftover expires after its lease.
     */
    private static RuntimeException abandoned(ClientCore client, LockRequest request, Throwable e) {
        LockBackend backend = client.backend;
        client.waits.run(() -> {
            try {
                backend.abandon(request);
            } catch (RuntimeException | LinkageError cleanup) {
                log.debug(
                        "Baton lock '{}' on {}: removing what a failed attempt left failed; it expires after"
                                + " its lease time: {}",
                        request.name(),
                        backend.name(),
                        cleanup.toString());
            }
        });
        return e instanceof LockException locked ? locked : unavailable(backend, request, e);
    }

    private static LockUnavailableException unavailable(LockBackend backend, LockRequest request, Throwable e) {
        String subject = "Baton lock '" + request.name() + "' on " + backend.name();
        return new LockUnavailableException(
                subject + ": " + (e instanceof LinkageError ? classPathProblem(e) : "the backend failed: " + e), e);
    }

    /**
     * A failure of an acquisition as its caller sees it: a {@link LinkageError} (a backend's client
     * library on a class path it was not built for) as the backend being unavailable, with the fix.
     */
    static Throwable asSeenByCaller(String lock, Throwable failure) {
        return failure instanceof LinkageError
                ? new LockUnavailableException(lock + ": " + classPathProblem(failure), failure)
                : failure;
    }

    /** What a {@link LinkageError} from a backend's client library means, and the fix. */
    static String classPathProblem(Throwable e) {
        return "the backend's client library cannot run on this class path (" + e + "): a library it needs is"
                + " missing or at a version it was not built for; align their versions, for example by importing"
                + " dev.baton:baton-bom";
    }
}
