package dev.baton.jdbc;

import com.zaxxer.hikari.HikariConfig;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.jdbc.internal.ReconnectingPool;
import dev.baton.jdbc.internal.TableNames;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockBackendProvider;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Builds the JDBC lock backend for {@code jdbc:h2}, {@code jdbc:postgresql} and {@code jdbc:mariadb}
 * URLs; found by {@link
 * dev.baton.Baton#connect(String, LockOptions)} through {@link java.util.ServiceLoader}.
 *
 * <p>The URL is the driver's own URL plus optional Baton options, which are taken out before the
 * URL reaches the driver: query parameters on PostgreSQL and MariaDB, settings after {@code ;} on H2
 * (an H2 URL with {@code ?} is refused, since H2 would take it as part of the file name):
 *
 * <pre>
 * jdbc:postgresql://db:5432/app?user=app&amp;password=secret&amp;table=baton_locks&amp;createSchema=false
 * jdbc:h2:mem:locks;DB_CLOSE_DELAY=-1;USER=sa;PASSWORD=;table=baton_locks
 * </pre>
 *
 * <ul>
 *   <li>{@code strategy}: {@code table} (the default; H2, PostgreSQL), {@code optimistic} (all),
 *       {@code pessimistic} (PostgreSQL, MariaDB) or {@code advisory} (PostgreSQL, MariaDB); a
 *       strategy that does not support the database fails with {@link LockConfigurationException}.
 *   <li>{@code table}: the lock table, default {@code baton_locks}, optionally schema-qualified; the
 *       readers table {@code <table>_readers}, the sequence {@code <table>_fencing_seq} and the
 *       semaphore tables {@code <table>_semaphores} and {@code <table>_permits} are named after it.
 *   <li>{@code createSchema}: {@code true} (default) creates missing tables on first use; with
 *       {@code false} a missing table fails the first operation with a {@link
 *       LockConfigurationException} that prints the DDL to run.
 *   <li>{@code advisoryHolders}: {@code true} makes the PostgreSQL advisory strategy record each
 *       holder, so that {@code baton locks} can name and break its locks (default {@code false}).
 *   <li>{@code clientName} and {@code fair}, which every Baton URI takes ({@link
 *       dev.baton.Baton#connect(String, LockOptions)}).
 * </ul>
 *
 * <p>Which names are Baton's (compared ignoring case): the options above, always, even if the driver
 * had a parameter of the same name. A name the driver lists among its own parameters ({@link
 * java.sql.Driver#getPropertyInfo}; PostgreSQL's and MariaDB's drivers list all of theirs, H2's none)
 * passes through to the driver untouched. Any other name within a few letters of a Baton option, or
 * naming a {@link LockOptions} option ({@code leaseTime}, ...), is refused as a misspelt Baton option
 * with the nearest name; every other name passes through to the driver untouched. All of this is
 * checked when the client is built: a bad option or value fails {@link dev.baton.Baton#connect} with
 * a {@link LockConfigurationException} naming the option and what it takes.
 *
 * <p>The backend owns a HikariCP pool (named {@code baton-<n>}, up to 10 connections, 40 for the
 * strategies that pin a connection per held lock), closed with the client; on PostgreSQL the {@code
 * table} and {@code optimistic} strategies (and every strategy for semaphore permits) also open one
 * listener connection outside the pool for LISTEN/NOTIFY wake-ups while waiters exist. It connects lazily: {@link #create} never touches the network, and an unreachable
 * database or wrong credentials show up as {@link dev.baton.LockUnavailableException} on first use.
 * Every operation is bounded by {@link LockOptions#operationTimeout()}: waiting for a connection,
 * each statement, and for PostgreSQL also connecting and every socket read. After the database was
 * unreachable, the next operation starts with a fresh pool, so the client recovers as soon as the
 * database is back.
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
     * @throws LockConfigurationException for a malformed URL, a misspelt Baton option, an unknown
     *     strategy, an invalid table name or true/false value, or a JDBC driver missing from the class
     *     path
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
                    "Baton JDBC URL " + LockUrl.redact(url.driverUrl()) + ": the connection pool could not be"
                            + " set up: " + e.getMessage(),
                    e);
        }
        return backend(
                url.strategy(),
                pool,
                url.dialect(),
                url.tables(),
                url.createSchema(),
                options,
                pool,
                url.advisoryHolders());
    }

    /**
     * The backend of a strategy; {@code dialect} null means detect it on first use. The table and
     * optimistic strategies hand off fairly unless {@code options.fair()} is false (a URI's {@code
     * fair=false} is read into the options by the core); the others wait in the database's own queue
     * either way.
     */
    static LockBackend backend(
            Strategy strategy,
            javax.sql.DataSource dataSource,
            Dialect dialect,
            TableNames tables,
            boolean createSchema,
            LockOptions options,
            ReconnectingPool ownedPool,
            boolean advisoryHolders) {
        return new JdbcLockBackend(
                strategy,
                dataSource,
                dialect,
                tables,
                createSchema,
                options.operationTimeout(),
                ownedPool,
                options.fair(),
                advisoryHolders);
    }

    static HikariConfig poolConfig(LockUrl url, Duration operationTimeout) {
        long timeoutMillis = Math.max(HIKARI_MIN_TIMEOUT_MILLIS, operationTimeout.toMillis());
        HikariConfig config = new HikariConfig();
        config.setPoolName("baton-" + POOLS.incrementAndGet());
        config.setJdbcUrl(url.driverUrl());
        config.setDriverClassName(url.dialect().driverClass());
        // The advisory and pessimistic strategies pin one connection per held lock for the lease, on top of the
        // connections of short operations.
        config.setMaximumPoolSize(url.strategy().pinsConnections() ? 40 : 10);
        // No idle connections kept open for nothing, and no background connection attempts while
        // the database is down; renewals keep a connection warm while locks are held.
        config.setMinimumIdle(0);
        config.setConnectionTimeout(timeoutMillis);
        config.setValidationTimeout(timeoutMillis);
        // Connect lazily: a database that is down must not fail connect(), only the first operation.
        config.setInitializationFailTimeout(-1);
        config.setAutoCommit(true);
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        if (url.dialect() == Dialect.POSTGRESQL) {
            // A server that stops answering must not hang a call: bound connecting, logging in and
            // every read. The socket timeout is a second longer than the statement timeout so that a
            // server that is merely slow gets the statement cancelled first. Values in the URL win.
            int seconds = JdbcTime.queryTimeoutSeconds(operationTimeout);
            config.addDataSourceProperty("connectTimeout", String.valueOf(seconds));
            config.addDataSourceProperty("loginTimeout", String.valueOf(seconds));
            config.addDataSourceProperty("socketTimeout", String.valueOf(seconds + 1));
        } else if (url.dialect() == Dialect.MARIADB) {
            // The same bounds for MariaDB's driver, in milliseconds.
            int seconds = JdbcTime.queryTimeoutSeconds(operationTimeout);
            config.addDataSourceProperty("connectTimeout", String.valueOf(seconds * 1000L));
            config.addDataSourceProperty("socketTimeout", String.valueOf((seconds + 1) * 1000L));
            // The fair hand-off release is one multi-statement transaction (MariaDbHandOn): one round
            // trip instead of seven. Every statement Baton sends binds its values as parameters.
            config.addDataSourceProperty("allowMultiQueries", "true");
        }
        return config;
    }

    private static void requireDriver(LockUrl url) {
        try {
            Class.forName(url.dialect().driverClass(), false, JdbcLockBackendProvider.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new LockConfigurationException(
                    "Baton JDBC URL " + LockUrl.redact(url.driverUrl()) + ": the "
                            + url.dialect().displayName()
                            + " JDBC driver (" + url.dialect().driverClass() + ") is not on the class path; add"
                            + " the dependency " + url.dialect().driverArtifact(),
                    e);
        }
    }
}
