package dev.baton.jdbc.internal;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.jdbc.listen.PendingCheckSocketFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
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
public record ListenConnection(Connection connection, boolean borrowed) {
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
                return new ListenConnection(
                        connect(hikari.getJdbcUrl(), properties, DriverManager::getConnection), false);
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

    /** Opens a connection; the PostgreSQL driver's. */
    public interface Connector {
        public Connection connect(String url, Properties properties) throws SQLException;
    }

    /**
     * Connects with {@link PendingCheckSocketFactory} on PostgreSQL, unless the URL or properties
     * name a socket factory of their own; if the driver cannot use it (it could not load the class),
     * connects without it: notifications then reach waiters a millisecond later, nothing else.
     */
    public static Connection connect(String url, Properties properties, Connector connector) throws SQLException {
        Properties pendingCheck = withPendingCheck(url, properties);
        if (pendingCheck == properties) {
            return connector.connect(url, properties);
        }
        try {
            return connector.connect(url, pendingCheck);
        } catch (SQLException e) {
            if (!String.valueOf(e.getMessage()).contains("SocketFactory")) {
                throw e;
            }
            log.debug("Baton: the LISTEN connection opens without its socket factory: {}", e.toString());
            return connector.connect(url, properties);
        }
    }

    /** {@code properties} with the socket factory added, or {@code properties} itself if it must not be. */
    private static Properties withPendingCheck(String url, Properties properties) {
        if (url == null
                || !url.startsWith("jdbc:postgresql:")
                || url.contains("socketFactory=")
                || properties.containsKey("socketFactory")) {
            return properties;
        }
        Properties added = new Properties();
        added.putAll(properties);
        added.setProperty("socketFactory", PendingCheckSocketFactory.class.getName());
        return added;
    }

    /** Executes LISTEN on {@code channel}, a safe identifier. */
    void listen(String channel, int queryTimeoutSeconds) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.setQueryTimeout(queryTimeoutSeconds);
            st.execute("LISTEN \"" + channel + "\"");
        }
    }

    /** What arrives within {@code waitNanos} (none: what has arrived), or null. */
    org.postgresql.PGNotification[] receive(long waitNanos) throws SQLException {
        org.postgresql.PGConnection pg = connection.unwrap(org.postgresql.PGConnection.class);
        long millis = TimeUnit.NANOSECONDS.toMillis(waitNanos);
        return millis <= 0 ? pg.getNotifications() : pg.getNotifications((int) Math.min(millis, Integer.MAX_VALUE));
    }

    /** A server that vanished without closing the socket sends nothing: asks it. */
    void ping(int queryTimeoutSeconds) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.setQueryTimeout(queryTimeoutSeconds);
            st.execute("SELECT 1");
        }
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
