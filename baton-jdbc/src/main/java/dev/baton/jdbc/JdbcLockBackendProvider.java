package dev.baton.jdbc;

import com.zaxxer.hikari.HikariConfig;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.jdbc.internal.ReconnectingPool;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockBackendProvider;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Builds the JDBC lock backend for {@code jdbc:h2}, {@code jdbc:postgresql} and {@code jdbc:mariadb}
 * URLs for {@link dev.baton.Baton#connect(String, LockOptions)}. The URL is the driver's own plus
 * Baton's options, taken out before it reaches the driver; options and examples are in {@code
 * docs/backends/jdbc.md}.
 *
 * <p>A bad or misspelt option, a strategy the database does not support or a missing driver fails
 * {@link dev.baton.Baton#connect} with a {@link LockConfigurationException}. The backend owns a
 * HikariCP pool, closed with the client, plus on PostgreSQL one listener connection while waiters
 * exist. It connects lazily: an unreachable database or wrong credentials show up as {@link
 * dev.baton.LockUnavailableException} on first use. Connecting, waiting for a connection and each
 * statement are bounded by {@link LockOptions#operationTimeout()}; after an outage the next operation
 * starts with a fresh pool.
 */
public final class JdbcLockBackendProvider implements LockBackendProvider {
    private static final AtomicInteger POOLS = new AtomicInteger();
    /** HikariCP refuses shorter connection and validation timeouts. */
    private static final long HIKARI_MIN_TIMEOUT_MILLIS = 250;

    /** Used by {@link java.util.ServiceLoader}. */
    public JdbcLockBackendProvider() {}

    @Override
    public Set<String> schemes() {
        return Set.of("jdbc:h2", "jdbc:postgresql", "jdbc:mariadb");
    }

    /**
     * Builds the backend; does no I/O.
     *
     * @throws LockConfigurationException for a bad URL or option, or a JDBC driver not on the class path
     */
    @Override
    public LockBackend create(String uri, LockOptions options) {
        if (options == null) {
            throw new LockConfigurationException("Baton JDBC: options must not be null; use LockOptions.defaults()");
        }
        LockUrl url = LockUrl.parse(uri);
        requireDriver(url);
        ReconnectingPool pool;
        try {
            pool = new ReconnectingPool(poolConfig(url, options.operationTimeout()));
        } catch (RuntimeException e) {
            throw new LockConfigurationException(
                    "Baton JDBC URL " + JdbcFailures.redact(url.driverUrl()) + ": the connection pool could not be"
                            + " set up: " + e.getMessage(),
                    e);
        }
        return new JdbcLockBackend(
                url.strategy(),
                null,
                url.dialect(),
                url.tables(),
                url.createSchema(),
                options,
                pool,
                url.advisoryHolders());
    }

    static HikariConfig poolConfig(LockUrl url, Duration operationTimeout) {
        long timeoutMillis = Math.max(HIKARI_MIN_TIMEOUT_MILLIS, operationTimeout.toMillis());
        HikariConfig config = new HikariConfig();
        config.setPoolName("baton-" + POOLS.incrementAndGet());
        config.setJdbcUrl(url.driverUrl());
        config.setDriverClassName(url.dialect().driverClass());
        config.setMaximumPoolSize(url.strategy().pinsConnections() ? 40 : 10);
        // No background connection attempts while the database is down; renewals keep one warm.
        config.setMinimumIdle(0);
        config.setConnectionTimeout(timeoutMillis);
        config.setValidationTimeout(timeoutMillis);
        // Connect lazily: a database that is down must not fail connect(), only the first operation.
        config.setInitializationFailTimeout(-1);
        config.setAutoCommit(true);
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        // A server that stops answering must not hang a call; the socket timeout outlasts the statement
        // timeout by a second, so that a slow statement is cancelled first. Values in the URL win.
        int seconds = JdbcTime.queryTimeoutSeconds(operationTimeout);
        if (url.dialect() == Dialect.POSTGRESQL) {
            config.addDataSourceProperty("connectTimeout", String.valueOf(seconds));
            config.addDataSourceProperty("loginTimeout", String.valueOf(seconds));
            config.addDataSourceProperty("socketTimeout", String.valueOf(seconds + 1));
        } else if (url.dialect() == Dialect.MARIADB) {
            config.addDataSourceProperty("connectTimeout", String.valueOf(seconds * 1000L));
            config.addDataSourceProperty("socketTimeout", String.valueOf((seconds + 1) * 1000L));
            // The fair hand-off release is one multi-statement round trip (MariaDbHandOn); every
            // statement Baton sends binds its values as parameters.
            config.addDataSourceProperty("allowMultiQueries", "true");
        }
        return config;
    }

    private static void requireDriver(LockUrl url) {
        try {
            Class.forName(url.dialect().driverClass(), false, JdbcLockBackendProvider.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new LockConfigurationException(
                    "Baton JDBC URL " + JdbcFailures.redact(url.driverUrl()) + ": the "
                            + url.dialect().displayName()
                            + " JDBC driver (" + url.dialect().driverClass() + ") is not on the class path; add"
                            + " the dependency " + url.dialect().driverArtifact(),
                    e);
        }
    }
}
