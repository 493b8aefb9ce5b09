package dev.baton.jdbc;

import dev.baton.LockInfo;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code pessimistic} strategy (PostgreSQL, MariaDB): the holder locks the name's row in {@code
 * <table>_pess} with {@code SELECT ... FOR UPDATE} ({@code FOR SHARE} / {@code LOCK IN SHARE MODE}
 * for readers) in a transaction that stays open on a dedicated connection for the whole lease
 * ({@link Grant#backendState()}). Waiters queue on the row lock inside the database, first come first
 * served.
 *
 * <p>Protocol:
 *
 * <ul>
 *   <li>Acquire: begin; lock the row ({@code NOWAIT} for a try; a timed wait bounded by PostgreSQL's
 *       {@code lock_timeout} or MariaDB's {@code max_statement_time}); then, holding it, draw the
 *       fencing token from {@code <table>_pess_seq} and bound the idle transaction to the lease
 *       ({@code idle_in_transaction_session_timeout} on PostgreSQL, {@code wait_timeout} on MariaDB).
 *       A name seen for the first time gets its row inserted (auto-commit) first.
 *   <li>Renew: sets that idle bound again, which proves the session and its transaction alive.
 *   <li>Release: rollback, which ends the transaction and frees the row; the connection goes back to
 *       the pool with its settings restored.
 * </ul>
 *
 * <p>Loss: the lease is lost when the connection breaks (the server rolls the transaction back), and
 * the server ends a transaction left idle for a lease time, so a vanished client frees the lock within
 * one lease. Tokens come from a sequence, which is not transactional: a token drawn by a holder that
 * was rolled back is never handed out again, so tokens strictly increase per name.
 *
 * <p>A pooled connection never carries a lock or a transaction to its next borrower: release rolls
 * back and restores auto-commit and isolation, and any failure discards the connection instead of
 * returning it. Blocking waits run on a helper thread so that the waiting caller can be interrupted
 * (the statement is cancelled, the connection aborted if cancelling does not end it in time: {@link
 * StatementWait}). The SQL, for PostgreSQL and MariaDB, is in {@link PessimisticStatements}.
 */
final class PessimisticProtocol implements PinningProtocol {
    private static final Logger log = LoggerFactory.getLogger(PessimisticProtocol.class);

    private final Context context;
    private final JdbcConnections connections;
    /** The JDBC query timeout of short statements, in seconds. */
    private final int timeout;

    private final Dialect dialect;
    private final PessimisticStatements sql;
    /** What names a grant to operators (PostgreSQL only). */
    private final PessimisticHolders holders;

    PessimisticProtocol(Context context) {
        this.context = context;
        this.connections = context.connections();
        this.timeout = connections.queryTimeoutSeconds;
        this.dialect = context.dialect();
        this.sql = new PessimisticStatements(dialect, context.names());
        this.holders = new PessimisticHolders(context, sql);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return holders.list(prefix);
    }

    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        return holders.forceRelease(name, ownerId);
    }

    @Override
    public Map<String, String> probes() {
        return sql.probes;
    }

    /** A held row lock: its connection, in an open transaction. Renew and release take turns. */
    private static final class Held extends PinnedSession {
        final boolean autoCommitBefore;
        final int isolationBefore;
        /** The comment that names the grant in the statements run on it ({@link PessimisticHolders}). */
        String comment = "";

        Held(JdbcProtocol protocol, Connection connection, JdbcConnections connections) throws SQLException {
            super(protocol, connection, connections.ownedPool);
            this.autoCommitBefore = connection.getAutoCommit();
            this.isolationBefore = connection.getTransactionIsolation();
        }
    }

    /** A try is a wait of zero (NOWAIT), which never blocks; an interrupt seen meanwhile fails it. */
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
     * Begins a transaction on a connection of its own and locks the name's row in it; the grant keeps
     * the connection, and anything else rolls back and gives it back ({@link #finish}).
     */
    @Override
    public Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        long waitMillis = timeoutNanos < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(timeoutNanos);
        Connection connection;
        try {
            connection = connections.borrow();
        } catch (SQLException e) {
            throw context.failure(request.name(), "acquire", e);
        }
        Held held;
        try {
            held = new Held(this, connection, connections);
        } catch (SQLException e) {
            connections.discard(connection);
            throw context.failure(request.name(), "acquire", e);
        }
        boolean granted = false;
        try {
            long lease = JdbcTime.leaseMillis(request.leaseTime());
            if (!lock(held, request, waitMillis)) {
                return Optional.empty();
            }
            long token;
            held.comment = holders.comment(request, lease);
            try (PreparedStatement ps = connection.prepareStatement(held.comment + sql.drawToken)) {
                ps.setQueryTimeout(timeout);
                if (dialect == Dialect.POSTGRESQL) {
                    ps.setString(1, String.valueOf(JdbcTime.idleMillis(lease)));
                } else if (sql.recordsHolders) {
                    holders.bindRecord(ps, request, lease);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    token = rs.getLong(1);
                }
            }
            if (dialect == Dialect.MARIADB) {
                execute(connection, sql.waitTimeout(lease), 0);
            }
            granted = true;
            return Optional.of(Grant.of(request, token, JdbcTime.expiry(lease)).withBackendState(held));
        } catch (SQLException e) {
            throw context.failure(request.name(), "acquire", e);
        } finally {
            if (!granted) {
                held.endOnce(() -> finish(held, false));
            }
        }
    }

    /**
     * Begins the transaction and locks the row, inserting it first if the name is new. Returns
     * whether the lock was taken within the wait.
     */
    private boolean lock(Held held, LockRequest request, long waitMillis) throws SQLException, InterruptedException {
        Connection connection = held.connection;
        connection.setAutoCommit(false);
        if (held.isolationBefore != Connection.TRANSACTION_READ_COMMITTED) {
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        boolean insertIfMissing = true;
        long deadline = waitMillis > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis) : 0;
        while (true) {
            long slice = waitMillis <= 0
                    ? waitMillis
                    : Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            boolean found;
            try {
                found = waitMillis == 0 ? lockNow(held, request, 0) : lockWaiting(held, request, slice);
            } catch (SQLException e) {
                if (JdbcFailures.isConflict(e) || (dialect == Dialect.MARIADB && JdbcFailures.isTimeout(e))) {
                    if (waitMillis > 0 && dialect == Dialect.MARIADB) {
                        // max_statement_time ended the wait; HikariCP takes the resulting
                        // SQLTimeoutException for a dead connection and closes it, so there is
                        // nothing to roll back: the caller discards the connection.
                        return false;
                    }
                    connection.rollback();
                    if (waitMillis < 0 && !context.closed().getAsBoolean()) {
                        continue; // the slice of an unlimited wait ran out: queue again
                    }
                    return false;
                }
                throw e;
            }
            if (found) {
                return true;
            }
            // No row yet: create it (committed at once), then lock it.
            connection.rollback();
            if (!insertIfMissing) {
                return false;
            }
            connection.setAutoCommit(true);
            try (PreparedStatement ps = connection.prepareStatement(sql.insertRow)) {
                ps.setQueryTimeout(timeout);
                ps.setString(1, request.name());
                ps.executeUpdate();
            } catch (SQLException e) {
                if (!JdbcFailures.isDuplicateKey(e)) {
                    throw e;
                }
            }
            connection.setAutoCommit(false);
            insertIfMissing = false;
        }
    }

    /** Runs the lock statement on this thread; whether the row exists (and is now locked). */
    private boolean lockNow(Held held, LockRequest request, long waitMillis) throws SQLException {
        Connection connection = held.connection;
        if (sql.lockTimeout != null && waitMillis != 0) {
            try (PreparedStatement ps = connection.prepareStatement(sql.lockTimeout)) {
                ps.setQueryTimeout(timeout);
                ps.setString(1, String.valueOf(waitMillis < 0 ? StatementWait.SLICE_MILLIS : waitMillis));
                ps.executeQuery().close();
            }
        }
        try (PreparedStatement ps = connection.prepareStatement(sql.lockRow(request.mode(), waitMillis))) {
            if (waitMillis == 0 || dialect == Dialect.POSTGRESQL) {
                // MariaDB's driver would turn a query timeout into max_statement_time, which the wait
                // statement sets itself.
                ps.setQueryTimeout(waitMillis == 0 ? timeout : 0);
            }
            ps.setString(1, request.name());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /**
     * Runs the waiting lock statement on a helper thread ({@link StatementWait}), so the caller waits
     * interruptibly. A row lock granted while the wait was being cancelled needs no undo: ending the
     * attempt rolls the transaction back.
     *
     * @throws LockUnavailableException if the backend was closed before or during the wait
     */
    private boolean lockWaiting(Held held, LockRequest request, long waitMillis)
            throws SQLException, InterruptedException {
        long bound = waitMillis < 0 ? StatementWait.SLICE_MILLIS : waitMillis;
        return context.waits()
                .run(held.connection, bound, request.name(), () -> lockNow(held, request, waitMillis), locked -> {});
    }

    private static void execute(Connection connection, String statement, int timeoutSeconds) throws SQLException {
        try (Statement st = connection.createStatement()) {
            if (timeoutSeconds > 0) {
                st.setQueryTimeout(timeoutSeconds);
            }
            st.execute(statement);
        }
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        long lease = JdbcTime.leaseMillis(leaseTime);
        Held held = (Held) grant.backendState();
        return held.renew(
                grant,
                context.backendName(),
                connection -> {
                    if (sql.idleBound != null) {
                        try (PreparedStatement ps = connection.prepareStatement(held.comment + sql.idleBound)) {
                            ps.setQueryTimeout(timeout);
                            ps.setString(1, String.valueOf(JdbcTime.idleMillis(lease)));
                            ps.executeQuery().close();
                        }
                    } else {
                        execute(connection, sql.waitTimeout(lease), 0);
                    }
                    return Optional.of(grant.withExpiresAt(JdbcTime.expiry(lease)));
                },
                e -> context.failure(grant.name(), "renew", e));
    }

    @Override
    public Released release(Grant grant) {
        if (!(grant.backendState() instanceof Held held)) {
            return Released.NOT_HELD; // an abandoned attempt: acquire already ended its transaction
        }
        return Released.of(held.endOnce(() -> finish(held, true)));
    }

    /**
     * Rolls back (freeing the row), restores the connection and returns it to the pool; discards it
     * on any failure. Returns whether the rollback reached a live transaction.
     */
    private boolean finish(Held held, boolean report) {
        Connection connection = held.connection;
        try {
            connection.rollback();
            if (sql.restoreIdle != null) {
                execute(connection, sql.restoreIdle, timeout);
            }
            if (connection.getTransactionIsolation() != held.isolationBefore) {
                connection.setTransactionIsolation(held.isolationBefore);
            }
            connection.setAutoCommit(held.autoCommitBefore);
            connection.close();
            return true;
        } catch (SQLException e) {
            connections.discard(connection);
            if (report && !JdbcFailures.isBrokenConnection(e) && !JdbcFailures.isConnection(e)) {
                log.debug(
                        "Baton {}: release failed; the connection was discarded, which ends the transaction: {}",
                        context.backendName(),
                        e.toString());
            }
            return false;
        }
    }
}
