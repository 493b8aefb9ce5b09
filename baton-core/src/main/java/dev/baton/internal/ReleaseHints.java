package dev.baton.internal;

import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import dev.baton.spi.ReleaseNotifications.Subscription;
import dev.baton.spi.WaitQueue;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A waiter's calls whose failure must never become its outcome: subscribing to and ending release
 * hints, and leaving the backend's line. Hints only shorten a wait, so a failure to subscribe leaves
 * the waiter polling; a failure to unsubscribe or leave once the waiter has its outcome (its grant,
 * its timeout, the error it is already reporting) is logged instead of replacing that outcome.
 */
final class ReleaseHints {

    private static final Logger log = LoggerFactory.getLogger(ReleaseHints.class);

    private final String backendName;
    private final BooleanSupplier clientClosed;

    ReleaseHints(String backendName, BooleanSupplier clientClosed) {
        this.backendName = backendName;
        this.clientClosed = clientClosed;
    }

    /** Subscribes {@code onRelease} to the releases of the request's lock; null when the backend failed to. */
    Subscription subscribe(ReleaseNotifications notifications, LockRequest request, Runnable onRelease) {
        try {
            return notifications.subscribe(request.name(), onRelease);
        } catch (RuntimeException e) {
            log.debug(
                    "Baton lock '{}' on {}: subscribing to release events failed, polling instead: {}",
                    request.name(),
                    backendName,
                    e.toString());
            return null;
        }
    }

    void unsubscribe(LockRequest request, Subscription subscription) {
        try {
            subscription.close();
        } catch (RuntimeException e) {
            log.debug(
                    "Baton lock '{}' on {}: ending the subscription to release events failed: {}",
                    request.name(),
                    backendName,
                    e.toString());
        }
    }

    /**
     * Leaves the backend's line. A failure while the client is open is worth a warning: a lock the
     * backend handed to this entry stays taken until the entry expires.
     */
    void leave(LockRequest request, WaitQueue.Entry entry) {
        try {
            entry.leave();
        } catch (RuntimeException e) {
            if (clientClosed.getAsBoolean()) {
                log.debug(
                        "Baton lock '{}' on {}: leaving the line after close failed: {}",
                        request.name(),
                        backendName,
                        e.toString());
            } else {
                log.warn(
                        "Baton lock '{}' on {}: leaving the backend's line of waiters failed; a grant handed"
                                + " to this waiter is freed when its entry expires: {}",
                        request.name(),
                        backendName,
                        e.toString());
            }
        }
    }
}
