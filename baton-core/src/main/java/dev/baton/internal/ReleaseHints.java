package dev.baton.internal;

import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import dev.baton.spi.ReleaseNotifications.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A polling waiter's view of a backend's {@link ReleaseNotifications}. Release events are only hints
 * that shorten a wait, so a failure to subscribe or unsubscribe (the connection dropped, the client is
 * closing under the waiter) never becomes the waiter's outcome: the waiter keeps polling, and a closed
 * client is reported by the core's own check.
 */
final class ReleaseHints {

    private static final Logger log = LoggerFactory.getLogger(ReleaseHints.class);

    private final String backendName;
    private final ReleaseNotifications notifications;

    ReleaseHints(String backendName, ReleaseNotifications notifications) {
        this.backendName = backendName;
        this.notifications = notifications;
    }

    boolean supported() {
        return notifications.supported();
    }

    /** Subscribes {@code onRelease} for {@code request}; null when the backend failed to. */
    Subscription subscribe(LockRequest request, Runnable onRelease) {
        try {
            return notifications.subscribe(request, onRelease);
        } catch (RuntimeException e) {
            log.debug(
                    "Baton lock '{}' on {}: subscribing to release events failed, polling instead: {}",
                    request.name(),
                    backendName,
                    e.toString());
            return null;
        }
    }

    /**
     * Ends a subscription without letting a failure replace the waiter's own outcome (its grant, its
     * timeout, or the error it is already reporting). A backend that queues waiters dequeues on close,
     * so a failure while the client is open is worth a warning: a lock handed to this waiter stays
     * taken until its lease expires.
     */
    void unsubscribe(LockRequest request, Subscription subscription, boolean clientClosed) {
        try {
            subscription.close();
        } catch (RuntimeException e) {
            if (clientClosed) {
                log.debug(
                        "Baton lock '{}' on {}: unsubscribing after close failed: {}",
                        request.name(),
                        backendName,
                        e.toString());
            } else {
                log.warn(
                        "Baton lock '{}' on {}: ending the wait's subscription failed; a grant handed to it"
                                + " is freed when its lease expires: {}",
                        request.name(),
                        backendName,
                        e.toString());
            }
        }
    }
}
