package dev.baton.jdbc;

import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The template of the protocols whose grant owns a connection ({@link PgAdvisoryProtocol}, {@link
 * MariaDbNamedLockProtocol}; {@link PessimisticProtocol} keeps a transaction and only borrows and
 * gives back here). It owns, once for all of them: borrowing a connection of its own for each
 * attempt; the try, one round trip; the wait in the database's own queue, in bounded slices on a
 * helper thread ({@link StatementWait}) so that an interrupt cancels it, a grant that came with the
 * cancel being undone; the refusal of a client closed while waiting; and keep-or-discard: the grant
 * keeps the connection ({@link PinnedSession}), an attempt without one gives it back, and a failure
 * whose state on the connection is unknown discards it, which ends the session and frees whatever it
 * may hold. A try is a wait of zero.
 */
abstract class PinnedProtocol implements PinningProtocol {
    final Context context;
    final JdbcConnections connections;
    /** The JDBC query timeout of short statements, in seconds. */
    final int timeout;

    PinnedProtocol(Context context) {
        this.context = context;
        this.connections = context.connections();
        this.timeout = connections.queryTimeoutSeconds;
    }

    /**
     * One round trip on {@code connection}: the grant (keeping the connection) if the lock is free now,
     * else empty with nothing changed on the connection.
     */
    abstract Optional<Grant> tryOn(Connection connection, LockRequest request) throws SQLException;

    /**
     * One wait in the database's queue of at most {@code waitMillis}, run on a helper thread: the grant,
     * or empty when the wait ran out with nothing held.
     */
    abstract Optional<Grant> waitOn(Connection connection, LockRequest request, long waitMillis) throws SQLException;

    /** Gives back the grant of a wait that was cancelled as it was granted, restoring the session. */
    abstract void undo(Connection connection, Grant grant) throws SQLException;

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

    /**
     * The try and, when it was refused and {@code timeoutNanos} is not zero, the wait in slices of at
     * most {@link StatementWait#SLICE_MILLIS} (negative: without limit), so a dead server is noticed.
     */
    @Override
    public Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        Connection connection = borrow(request.name());
        boolean keep = false;
        try {
            // Uncontended, the one-round-trip try is all it takes; only a busy lock joins the queue.
            Optional<Grant> grant = tryOn(connection, request);
            if (grant.isEmpty() && timeoutNanos != 0) {
                grant = await(connection, request, timeoutNanos);
            }
            keep = grant.isPresent();
            return grant;
        } catch (StatementWait.Interrupted e) {
            if (!e.connectionUsable) {
                connections.discard(connection);
                connection = null;
            }
            throw e;
        } catch (SQLException e) {
            // The lock may have been taken before the failure: end the session so it cannot linger.
            connections.discard(connection);
            connection = null;
            if (timeoutNanos == 0 && JdbcFailures.isConflict(e)) {
                return Optional.empty();
            }
            throw context.failure(request.name(), "acquire", e);
        } finally {
            if (!keep && connection != null) {
                giveBack(connection);
            }
        }
    }

    private Optional<Grant> await(Connection connection, LockRequest request, long timeoutNanos)
            throws SQLException, StatementWait.Interrupted {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            long waitMillis = StatementWait.nextWaitMillis(timeoutNanos, deadline);
            if (waitMillis == 0) {
                return Optional.empty();
            }
            Optional<Grant> granted = context.waits()
                    .run(connection, waitMillis, request.name(), () -> waitOn(connection, request, waitMillis), got -> {
                        if (got.isPresent()) {
                            undo(connection, got.get());
                        }
                    });
            if (granted.isPresent() || timeoutNanos > 0) {
                return granted;
            }
            if (context.closed().getAsBoolean()) {
                throw new LockUnavailableException("Baton lock '" + request.name() + "' on " + context.backendName()
                        + ": the client was closed while waiting; create a new client to take locks");
            }
        }
    }

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
