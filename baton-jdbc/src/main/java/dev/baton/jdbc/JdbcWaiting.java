package dev.baton.jdbc;

import dev.baton.LockKind;
import dev.baton.jdbc.internal.PgNotifications;
import dev.baton.jdbc.pinned.PinningProtocol;
import dev.baton.jdbc.row.JdbcLine;
import dev.baton.spi.ReleaseNotifications;
import dev.baton.spi.ReleaseNotifications.Subscription;
import dev.baton.spi.Waiting;

/**
 * How a backend's waiters wait ({@code docs/design/jdbc.md}): pinning strategies block in the
 * database's queue, at most as many at once as the pool has connections; fair row strategies line up
 * ({@link JdbcLine}); permits and barging row strategies poll, woken on PostgreSQL by a NOTIFY.
 */
final class JdbcWaiting {
    /** For a pool the application owns, whose size is unknown: Hikari's default. */
    static final int PINNED_WITHOUT_OWN_POOL = 10;

    private final Waiting permitWaiting;
    private final Waiting lockWaiting;

    /** {@code line} is null unless the strategy hands off fairly. */
    JdbcWaiting(
            JdbcLockBackend backend, boolean pinned, PgNotifications notifications, JdbcLine line, int pinnedAtOnce) {
        this.permitWaiting = Waiting.polling(new ReleaseNotifications() {
            @Override
            public Subscription subscribe(String lockName, Runnable wake) {
                return notifications.subscribe(PgNotifications.PERMIT_PREFIX + lockName, wake);
            }

            @Override
            public boolean supported() {
                return notifications.supported();
            }
        });
        this.lockWaiting = pinned
                ? Waiting.blocking(
                        (request, timeout) -> ((PinningProtocol) backend.ready(request)).acquire(request, timeout),
                        pinnedAtOnce)
                : line != null ? Waiting.queue(line) : Waiting.polling(notifications);
    }

    Waiting of(LockKind kind) {
        return kind == LockKind.PERMIT ? permitWaiting : lockWaiting;
    }
}
