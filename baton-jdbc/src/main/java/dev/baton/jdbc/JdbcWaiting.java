package dev.baton.jdbc;

import dev.baton.LockKind;
import dev.baton.jdbc.internal.PgNotifications;
import dev.baton.jdbc.pinned.PinnedWaits;
import dev.baton.jdbc.pinned.PinningProtocol;
import dev.baton.jdbc.row.JdbcLine;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import dev.baton.spi.ReleaseNotifications.Subscription;
import dev.baton.spi.Waiting;
import java.util.Optional;

/**
 * How the waiters of a {@link JdbcLockBackend} wait, by kind and strategy: pinning strategies block
 * in the database's own queue, at most as many at once as the pool has connections; fair row
 * strategies line up ({@link JdbcLine}); permits and barging row strategies poll, woken on PostgreSQL
 * by a NOTIFY ({@link PgNotifications}). See {@code docs/design/jdbc.md}.
 */
final class JdbcWaiting {
    /** Blocking waits at once for a pool the application owns, whose size is unknown: Hikari's default. */
    static final int PINNED_WITHOUT_OWN_POOL = 10;

    private final JdbcLockBackend backend;
    private final Waiting permitWaiting;
    private final Waiting lockWaiting;

    /**
     * @param line the backend's line, when the strategy hands off fairly; else null
     * @param pinnedAtOnce how many pinned waits may block at once
     */
    JdbcWaiting(
            JdbcLockBackend backend, boolean pinned, PgNotifications notifications, JdbcLine line, int pinnedAtOnce) {
        this.backend = backend;
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
                ? Waiting.blocking(this::acquire, pinnedAtOnce)
                : line != null ? Waiting.queue(line) : Waiting.polling(notifications);
    }

    Waiting of(LockKind kind) {
        return kind == LockKind.PERMIT ? permitWaiting : lockWaiting;
    }

    /**
     * A blocking wait of a pinning strategy. A grant counts from when its attempt began (see {@link
     * PinnedWaits}); one whose session ended before it was read is not handed out, and the wait goes on
     * while time is left.
     */
    private Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        long start = System.nanoTime();
        while (true) {
            long called = System.nanoTime();
            long remaining = timeoutNanos <= 0 ? timeoutNanos : Math.max(0, timeoutNanos - (called - start));
            Optional<Grant> grant = ((PinningProtocol) backend.ready(request)).acquire(request, remaining);
            if (grant.isEmpty()) {
                return grant;
            }
            Optional<Grant> counted = PinnedWaits.counted(backend, request, grant.get(), called);
            if (counted.isPresent() || remaining == 0) {
                return counted;
            }
        }
    }
}
