package dev.baton.spi;

/**
 * A backend's way of telling waiters that a lock was released elsewhere (Redis pub/sub, PostgreSQL
 * LISTEN/NOTIFY). Notifications are hints: a waiter always re-checks with {@link
 * LockBackend#tryAcquire} and keeps a bounded poll as a fallback for a missed message.
 */
public interface ReleaseNotifications {

    /**
     * Starts delivering release events of the named lock to {@code onRelease} until the returned
     * subscription is closed. {@code onRelease} must not block.
     *
     * @param name the lock whose releases are wanted
     * @param onRelease called on a backend thread after each release that the backend sees; a
     *     missed or duplicated call is allowed, since waiters re-check
     * @return the subscription; closing it stops the calls and is idempotent
     */
    Subscription subscribe(String name, Runnable onRelease);

    /**
     * Like {@link #subscribe(String, Runnable)}, for one waiting request: from now until the
     * subscription is closed, the core retries {@code request} (same owner id) after each event and
     * after each poll pause. A backend that keeps a queue of waiters may use this to enqueue the
     * request and hand the lock straight to it on release (and then return the grant from the next
     * {@link LockBackend#tryAcquire} without asking the server again). Closing the subscription means
     * the waiter stopped waiting, granted or not: a backend that enqueued it must then dequeue it and
     * release whatever was handed to it but not taken. The default ignores the request.
     *
     * @param request the waiting request: its lock name, owner id, mode and lease time
     * @param onRelease called on a backend thread after each release that the backend sees
     * @return the subscription; closing it ends the wait on the backend's side too
     */
    default Subscription subscribe(LockRequest request, Runnable onRelease) {
        return subscribe(request.name(), onRelease);
    }

    /**
     * Whether this backend delivers notifications at all.
     *
     * @return {@code false} for polling-only backends, whose subscriptions never fire
     */
    default boolean supported() {
        return true;
    }

    /** An active subscription. */
    interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * No notifications: waiters poll.
     *
     * @return notifications that are {@linkplain #supported() unsupported} and never fire
     */
    static ReleaseNotifications none() {
        return new ReleaseNotifications() {
            @Override
            public Subscription subscribe(String name, Runnable onRelease) {
                return () -> {};
            }

            @Override
            public boolean supported() {
                return false;
            }
        };
    }
}
