package dev.baton.jdbc;

import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * What the protocols whose grant owns a connection share ({@link PessimisticProtocol}, {@link
 * PgAdvisoryProtocol}, {@link MariaDbNamedLockProtocol}): each attempt borrows a connection of its own,
 * which the grant keeps ({@link PinnedSession}) or which goes back, or is discarded, when none is
 * granted; and a try is a wait of zero.
 */
abstract class PinnedProtocol implements JdbcProtocol {
    final Context context;
    final JdbcConnections connections;
    /** The JDBC query timeout of short statements, in seconds. */
    final int timeout;

    PinnedProtocol(Context context) {
        this.context = context;
        this.connections = context.connections();
        this.timeout = connections.queryTimeoutSeconds;
    }

    /** A try is a wait of zero, which never blocks; an interrupt seen meanwhile fails it. */
    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        try {
            return acquire(request, 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(
                    "Baton lock '" + request.name() + "' on " + context.backendName() + ": interrupted while trying",
                    e);
        }
    }

    @Override
    public abstract Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException;

    /** A connection of its own for one attempt, taken out of the pool's session (it may be pinned). */
    Connection borrow(String lockName) {
        try {
            return connections.borrow();
        } catch (SQLException e) {
            throw context.failure(lockName, "acquire", e);
        }
    }

    /** Returns a connection that holds nothing to the pool. */
    void giveBack(Connection connection) {
        connections.giveBack(connection, context.backendName());
    }
}
