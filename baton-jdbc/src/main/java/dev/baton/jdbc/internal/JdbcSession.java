package dev.baton.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One borrowed connection, in auto-commit mode or one READ COMMITTED transaction; closing it restores
 * what it changed so an application's pool gets it back clean, or discards it when broken.
 *
 * <p>A pending interrupt is set aside until close, since pools give up a wait when interrupted: every
 * operation is bounded by the operation timeout, and the core's wait sees the interrupt right after.
 */
public final class JdbcSession implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JdbcSession.class);

    public interface Rows<T> {
        T read(ResultSet rs) throws SQLException;
    }

    public final Connection connection;
    private final JdbcConnections connections;
    private final boolean transaction;
    private final boolean autoCommitBefore;
    private final int isolationBefore;
    private final boolean interrupted;
    private boolean broken;
    private boolean detached;
    /** Committed with no statement since: closing skips the rollback, a round trip on some drivers. */
    private boolean committed;

    /** For {@link JdbcConnections#isolationToRestore}: ask the connection which level to restore. */
    static final int ASK_ISOLATION = -2;

    private JdbcSession(Connection connection, JdbcConnections connections, boolean transaction, boolean interrupted)
            throws SQLException {
        this.connection = connection;
        this.connections = connections;
        this.transaction = transaction;
        this.interrupted = interrupted;
        this.autoCommitBefore = connection.getAutoCommit();
        int known = connections.isolationToRestore;
        int isolation = !transaction ? -1 : known == ASK_ISOLATION ? connection.getTransactionIsolation() : known;
        this.isolationBefore = isolation == Connection.TRANSACTION_READ_COMMITTED ? -1 : isolation;
        if (isolationBefore != -1) {
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        if (autoCommitBefore == transaction) {
            connection.setAutoCommit(!transaction);
        }
    }

    /** Borrows a connection; retries a wait that an interrupt cut short. */
    static JdbcSession open(JdbcConnections connections, boolean tx) throws SQLException {
        boolean interrupted = Thread.interrupted();
        Connection connection = null;
        try {
            for (int attempt = 1; connection == null; attempt++) {
                try {
                    connection = connections.borrow();
                } catch (SQLException e) {
                    if (attempt >= 3 || !JdbcFailures.isInterrupt(e)) {
                        throw e;
                    }
                    interrupted |= Thread.interrupted();
                }
            }
            JdbcSession session = new JdbcSession(connection, connections, tx, interrupted);
            interrupted = false; // the session restores it
            return session;
        } catch (SQLException | RuntimeException e) {
            if (connection != null) {
                connections.discard(connection);
            }
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public int update(String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(connections.queryTimeoutSeconds, sql, params)) {
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw noted(e);
        }
    }

    /** Runs an INSERT that meets an existing key quietly; {@code true} if it inserted a row. */
    public boolean insertIfAbsent(String sql, Object... params) throws SQLException {
        try {
            return update(sql, params) == 1;
        } catch (SQLException e) {
            if (JdbcFailures.isDuplicateKey(e)) {
                return false; // H2: a failed statement does not spoil the transaction there
            }
            throw e;
        }
    }

    /** The first row, mapped; empty if there is none or it maps to null. */
    public <T> Optional<T> first(String sql, Rows<T> row, Object... params) throws SQLException {
        return query(connections.queryTimeoutSeconds, sql, rs -> firstRow(rs, row), params);
    }

    /**
     * As {@link #first} without a JDBC query timeout, for a statement that bounds its own wait in the
     * database (MariaDB's driver would send one as {@code max_statement_time}, which its waits set).
     */
    public <T> Optional<T> firstWaiting(String sql, Rows<T> row, Object... params) throws SQLException {
        return query(0, sql, rs -> firstRow(rs, row), params);
    }

    public <T> T all(String sql, Rows<T> rows, Object... params) throws SQLException {
        return query(connections.queryTimeoutSeconds, sql, rows, params);
    }

    private <T> T query(int queryTimeoutSeconds, String sql, Rows<T> rows, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(queryTimeoutSeconds, sql, params);
                ResultSet rs = ps.executeQuery()) {
            return rows.read(rs);
        } catch (SQLException e) {
            throw noted(e);
        }
    }

    private static <T> Optional<T> firstRow(ResultSet rs, Rows<T> row) throws SQLException {
        return rs.next() ? Optional.ofNullable(row.read(rs)) : Optional.empty();
    }

    /** Maps the first row of a multi-statement query's last result set (MariaDB's {@code allowMultiQueries}). */
    public <T> Optional<T> last(String sql, Rows<T> row, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(connections.queryTimeoutSeconds, sql, params)) {
            Optional<T> last = Optional.empty();
            boolean results = ps.execute();
            while (results || ps.getUpdateCount() != -1) {
                if (results) {
                    try (ResultSet rs = ps.getResultSet()) {
                        last = firstRow(rs, row);
                    }
                }
                results = ps.getMoreResults();
            }
            return last;
        } catch (SQLException e) {
            throw noted(e);
        }
    }

    public void commit() throws SQLException {
        try {
            connection.commit();
            committed = true;
        } catch (SQLException e) {
            throw noted(e);
        }
    }

    /** Remembers a failure that leaves the connection unusable, so that close discards it. */
    public SQLException noted(SQLException e) {
        broken |= JdbcFailures.isBrokenConnection(e);
        return e;
    }

    private PreparedStatement prepare(int queryTimeoutSeconds, String sql, Object... params) throws SQLException {
        committed = false;
        PreparedStatement ps = connection.prepareStatement(sql);
        try {
            ps.setQueryTimeout(queryTimeoutSeconds);
            for (int i = 0; i < params.length; i++) {
                if (params[i] instanceof Long value) {
                    ps.setLong(i + 1, value);
                } else if (params[i] instanceof String value) {
                    ps.setString(i + 1, value);
                } else {
                    ps.setObject(i + 1, params[i]);
                }
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    /** Keeps the connection for a pinned lease (auto-commit only); the caller closes or {@link #discard}s it. */
    public Connection detach() {
        detached = true;
        return connection;
    }

    @Override
    public void close() {
        try {
            if (detached) {
                return;
            }
            if (broken) {
                connections.discard(connection);
                return;
            }
            try {
                if (transaction && !committed) {
                    connection.rollback();
                }
                if (isolationBefore != -1) {
                    connection.setTransactionIsolation(isolationBefore);
                }
                if (connection.getAutoCommit() != autoCommitBefore) {
                    connection.setAutoCommit(autoCommitBefore);
                }
                connection.close();
            } catch (SQLException e) {
                log.debug("Baton: could not reset a connection before returning it, discarding it: {}", e.toString());
                connections.discard(connection);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Gets rid of a connection whose state is unknown: aborted when it belongs to an application's pool,
     * which then drops it instead of lending it out with a lock or transaction still attached.
     */
    static void discard(Connection connection, ReconnectingPool ownedPool) {
        if (ownedPool != null) {
            ownedPool.evict(connection);
            return;
        }
        try {
            connection.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            log.debug("Baton: aborting a connection failed: {}", e.toString());
            try {
                connection.close();
            } catch (SQLException closing) {
                log.debug("Baton: closing a connection failed: {}", closing.toString());
            }
        }
    }
}
