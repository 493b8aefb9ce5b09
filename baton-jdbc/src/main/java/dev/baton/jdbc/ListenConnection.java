package dev.baton.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection {@link PgNotifications} LISTENs on, outside any pool when possible: a pool's
 * connection would be taken from the application for as long as waiters exist, and a pool of one
 * would then starve them.
 *
 * @param borrowed whether it is a connection of the application's pool, given back after {@code
 *     UNLISTEN *}
 */
record ListenConnection(Connection connection, boolean borrowed) {
    private static final Logger log = LoggerFactory.getLogger(ListenConnection.class);

    /**
     * Opens one: from Baton's own pool's settings, an application's HikariCP pool's settings or
     * unpooled DataSource, PostgreSQL's {@code PGSimpleDataSource}; else borrows one from the pool.
     */
    static ListenConnection open(DataSource dataSource, ReconnectingPool ownedPool) throws SQLException {
        if (ownedPool != null) {
            return new ListenConnection(ownedPool.openDedicated(), false);
        }
        if (dataSource.isWrapperFor(HikariDataSource.class)) {
            HikariDataSource hikari = dataSource.unwrap(HikariDataSource.class);
            if (hikari.getDataSource() != null) {
                return new ListenConnection(hikari.getDataSource().getConnection(), false);
            }
            if (hikari.getJdbcUrl() != null) {
                Properties properties = new Properties();
                properties.putAll(hikari.getDataSourceProperties());
                if (hikari.getUsername() != null) {
                    properties.setProperty("user", hikari.getUsername());
                }
                if (hikari.getPassword() != null) {
                    properties.setProperty("password", hikari.getPassword());
                }
                return new ListenConnection(DriverManager.getConnection(hikari.getJdbcUrl(), properties), false);
            }
        }
        if (dataSource.isWrapperFor(org.postgresql.ds.PGSimpleDataSource.class)) {
            return new ListenConnection(
                    dataSource
                            .unwrap(org.postgresql.ds.PGSimpleDataSource.class)
                            .getConnection(),
                    false);
        }
        Connection borrowed = dataSource.getConnection();
        if (!borrowed.getAutoCommit()) {
            borrowed.setAutoCommit(true);
        }
        return new ListenConnection(borrowed, true);
    }

    /** Closes it; a borrowed one goes back to its pool without its LISTEN, or is discarded. */
    void close(int queryTimeoutSeconds, String backendName) {
        try {
            if (borrowed && !connection.isClosed()) {
                try (Statement st = connection.createStatement()) {
                    st.setQueryTimeout(queryTimeoutSeconds);
                    st.execute("UNLISTEN *");
                }
            }
            connection.close();
        } catch (SQLException e) {
            log.debug("Baton {}: closing the LISTEN connection failed: {}", backendName, e.toString());
            if (borrowed) {
                JdbcSession.discard(connection, null);
            }
        }
    }
}
