package dev.baton.jdbc.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import dev.baton.jdbc.listen.PendingCheckSocketFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HikariCP pool a backend builds from a URL, replaced by a fresh one when a request times out
 * with no connection open: HikariCP's creator backs off while the database is down, so the first
 * operations after it is back would still time out.
 */
public final class ReconnectingPool implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReconnectingPool.class);

    private final HikariConfig config;
    private final AtomicReference<HikariDataSource> current;
    private volatile boolean closed;

    public ReconnectingPool(HikariConfig config) {
        this.config = config;
        this.current = new AtomicReference<>(new HikariDataSource(config));
    }

    public Connection getConnection() throws SQLException {
        HikariDataSource pool = current.get();
        try {
            return pool.getConnection();
        } catch (SQLException e) {
            HikariPoolMXBean state = pool.getHikariPoolMXBean();
            if (!closed && e instanceof SQLTransientConnectionException && state != null) {
                if (state.getTotalConnections() == 0) {
                    replace(pool);
                } else if (state.getActiveConnections() >= config.getMaximumPoolSize()) {
                    throw new PoolExhaustedException(config.getPoolName(), config.getMaximumPoolSize());
                }
            }
            throw e;
        }
    }

    public int maximumSize() {
        return config.getMaximumPoolSize();
    }

    private void replace(HikariDataSource failed) {
        HikariDataSource fresh = new HikariDataSource(config);
        if (!current.compareAndSet(failed, fresh)) {
            fresh.close(); // another thread replaced it first; this one never opened a connection
            return;
        }
        log.debug("{}: the database was unreachable; starting a fresh pool", config.getPoolName());
        Thread closer = new Thread(failed::close, config.getPoolName() + " closer"); // waits for the creator
        closer.setDaemon(true);
        closer.start();
        if (closed) {
            fresh.close(); // close() may have run before the swap and closed only the old pool
        }
    }

    /** A connection with this pool's settings outside it, for the LISTEN connection, which must not take a slot. */
    Connection openDedicated() throws SQLException {
        Properties properties = driverProperties(config);
        // The pool's driver class directly: DriverManager only sees drivers of its own class loader.
        java.sql.Driver driver;
        try {
            driver = (java.sql.Driver)
                    Class.forName(config.getDriverClassName(), true, ReconnectingPool.class.getClassLoader())
                            .getDeclaredConstructor()
                            .newInstance();
        } catch (ReflectiveOperationException e) {
            return PendingCheckSocketFactory.connect(config.getJdbcUrl(), properties, DriverManager::getConnection);
        }
        return PendingCheckSocketFactory.connect(config.getJdbcUrl(), properties, (url, props) -> {
            Connection connection = driver.connect(url, props);
            if (connection == null) {
                throw new SQLException(
                        "the driver " + config.getDriverClassName() + " does not accept the URL", "08001");
            }
            return connection;
        });
    }

    /** The driver properties of {@code config} with its user and password, for a connection outside a pool. */
    static Properties driverProperties(HikariConfig config) {
        Properties properties = new Properties();
        properties.putAll(config.getDataSourceProperties());
        if (config.getUsername() != null) {
            properties.setProperty("user", config.getUsername());
        }
        if (config.getPassword() != null) {
            properties.setProperty("password", config.getPassword());
        }
        return properties;
    }

    /** Closes a connection known to be dead instead of returning it. */
    void evict(Connection connection) {
        current.get().evictConnection(connection);
    }

    /** For tests: whether the pool in use is closed. */
    public boolean isClosed() {
        return current.get().isClosed();
    }

    @Override
    public void close() {
        closed = true;
        current.get().close();
    }

    /** Every connection was borrowed: the pool's limit held the caller up, not the database. */
    static final class PoolExhaustedException extends SQLTransientConnectionException {
        private static final long serialVersionUID = 1L;

        PoolExhaustedException(String poolName, int size) {
            super("all " + size + " connections of the pool " + poolName + " were in use");
        }
    }
}
