package dev.baton.jdbc.internal;

import dev.baton.spi.LockRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where one backend's sessions come from. It remembers, per thread, an attempt that failed before
 * anything reached the database, so its abandon makes no second connection attempt.
 */
public final class JdbcConnections {
    private static final Logger log = LoggerFactory.getLogger(JdbcConnections.class);

    /** Null to borrow from the owned pool. */
    private final DataSource dataSource;
    /** Null when the application owns the DataSource. */
    public final ReconnectingPool ownedPool;

    public final Duration operationTimeout;
    public final int queryTimeoutSeconds;
    /** The isolation level the DataSource hands out when it is not READ COMMITTED; -1 otherwise. */
    volatile int isolationToRestore = JdbcSession.ASK_ISOLATION;
    /** The owner id of this thread's last attempt if it is known to have left nothing behind. */
    private final ThreadLocal<String> unsentAttempt = new ThreadLocal<>();

    public JdbcConnections(DataSource dataSource, ReconnectingPool ownedPool, Duration operationTimeout) {
        this.dataSource = dataSource;
        this.ownedPool = ownedPool;
        this.operationTimeout = operationTimeout;
        this.queryTimeoutSeconds = JdbcTime.queryTimeoutSeconds(operationTimeout);
    }

    Connection borrow() throws SQLException {
        return dataSource != null ? dataSource.getConnection() : ownedPool.getConnection();
    }

    public JdbcSession open(boolean transaction) throws SQLException {
        return JdbcSession.open(this, transaction);
    }

    /** Records the isolation level of a connection as the DataSource handed it out (see {@link JdbcSession}). */
    public void learnIsolation(Connection connection) throws SQLException {
        int isolation = connection.getTransactionIsolation();
        isolationToRestore = isolation == Connection.TRANSACTION_READ_COMMITTED ? -1 : isolation;
    }

    /** See {@link JdbcSession#discard}. */
    public void discard(Connection connection) {
        JdbcSession.discard(connection, ownedPool);
    }

    /** Whether the connections come from Baton's own pool, which no application shares. */
    public boolean ownsPool() {
        return ownedPool != null;
    }

    /** A new attempt of this thread: forgets the last one. */
    public void attemptStarts() {
        unsentAttempt.remove();
    }

    /** The attempt of {@code request} failed before anything reached the database. */
    public void unsent(LockRequest request) {
        unsentAttempt.set(request.ownerId());
    }

    /** Whether {@code request} is this thread's attempt known to have left nothing; forgets it. */
    public boolean wasUnsent(LockRequest request) {
        if (request.ownerId().equals(unsentAttempt.get())) {
            unsentAttempt.remove();
            return true;
        }
        return false;
    }

    public void closeOwnedPool(String backendName) {
        if (ownedPool == null) {
            return;
        }
        try {
            ownedPool.close();
        } catch (RuntimeException e) {
            log.warn("Baton {}: closing the connection pool failed", backendName, e);
        }
    }
}
