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
     */
    Subscription subscribe(String name, Runnable onRelease);

    /** Whether this backend delivers notifications at all; polling-only backends return false. */
    default boolean supported() {
        return true;
    }

    /** An active subscription. */
    interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    /** No notifications: waiters poll. */
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
