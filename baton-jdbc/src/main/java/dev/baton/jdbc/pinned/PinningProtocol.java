package dev.baton.jdbc.pinned;

import dev.baton.LockMode;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.util.Optional;

/**
 * The protocol of the strategies whose grant holds a connection: PostgreSQL's advisory locks
 * ({@link PgAdvisoryStatements}), MariaDB's named locks ({@link MariaDbNamedLockStatements}) and the
 * pessimistic row lock ({@link PessimisticStatements}), all on one template ({@link PinnedProtocol}).
 * Waiters wait in the database's own queue, one blocking call on a connection of their own each
 * ({@link dev.baton.spi.Waiting#blocking}). This interface and its factories are all the backend sees
 * of the package.
 */
public interface PinningProtocol extends JdbcProtocol {

    /**
     * Waits in the database's own queue, at most {@code timeoutNanos} (negative: without limit).
     *
     * @throws InterruptedException if interrupted, after the wait was withdrawn
     */
    Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException;

    /** The {@code pessimistic} strategy: a row lock in a transaction held for the lease. */
    static PinningProtocol pessimistic(Context context) {
        return new PinnedProtocol(context, new PessimisticStatements(context));
    }

    /** The {@code advisory} strategy: PostgreSQL's advisory locks or MariaDB's named locks. */
    static PinningProtocol advisory(Context context) {
        return new PinnedProtocol(
                context,
                context.dialect() == Dialect.MARIADB
                        ? new MariaDbNamedLockStatements(context)
                        : new PgAdvisoryStatements(context));
    }

    /** The protocol that took a pinned grant, which renews and releases it; null for other grants. */
    static JdbcProtocol of(Grant grant) {
        return grant.backendState() instanceof PinnedSession pinned ? pinned.protocol : null;
    }

    /** Refuses a read lock on MariaDB's named locks, before any I/O: they have no shared mode. */
    static void requireExclusive(LockRequest request, String backendName) {
        if (request.mode() == LockMode.SHARED) {
            throw new UnsupportedOperationException("Baton lock '" + request.name() + "' (read) on " + backendName
                    + ": MariaDB's named locks (GET_LOCK) have no shared mode, so read locks are not supported;"
                    + " use the pessimistic or optimistic strategy for read/write locks on MariaDB");
        }
    }
}
