package dev.baton.spi;

/**
 * A backend's way of telling polling waiters ({@link Waiting#polling(ReleaseNotifications)}) that a
 * lock was released elsewhere (Redis pub/sub, PostgreSQL LISTEN/NOTIFY). Notifications are hints, not a
 * queue: a waiter always re-checks with {@link LockBackend#tryAcquire} and keeps a bounded poll as a
 * fallback for a missed message. A backend that keeps a line of waiters declares a {@link WaitQueue}
 * instead.
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
