package dev.baton.jdbc;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.jdbc.internal.TableNames;
import javax.sql.DataSource;

/**
 * Locks in a database the application already has a pool for (H2, PostgreSQL or MariaDB/MySQL); the
 * strategies, what they store and a configuration example are in {@code docs/backends/jdbc.md}.
 *
 * <p>Guarantees: those of every Baton client (mutual exclusion while a lease is valid, fencing tokens
 * that strictly increase per name, expiry on the database's clock). Each operation runs its own short
 * READ COMMITTED transaction on a borrowed connection and returns it with its auto-commit and
 * isolation as found; pass a plain pool, not a transaction-aware proxy, so the lock's transactions
 * never join the application's. The {@code pessimistic} and {@code advisory} strategies keep one
 * connection per held lock and per waiter; on PostgreSQL the others use one listener connection while
 * waiters exist. Closing the client releases its leases and never closes the {@code DataSource}.
 *
 * <p>Failure behaviour: the setters reject bad values with {@link LockConfigurationException}. {@link
 * Builder#build()} does no I/O; the first use fails with {@link LockConfigurationException} for an
 * unsupported database or missing tables with {@code createSchema(false)}, and with {@link
 * dev.baton.LockUnavailableException} for an unreachable one. Statements are bounded by {@link
 * LockOptions#operationTimeout()}, waiting for a connection by the pool's own timeout.
 */
public final class JdbcLocks {

    private JdbcLocks() {}

    /**
     * Starts a client for the database behind {@code dataSource}.
     *
     * @param dataSource the application's connection pool
     * @return a builder with the defaults: table {@code baton_locks}, strategy {@code table}, schema
     *     created on first use, {@link LockOptions#defaults()}
     * @throws LockConfigurationException if {@code dataSource} is null
     */
    public static Builder builder(DataSource dataSource) {
        if (dataSource == null) {
            throw new LockConfigurationException(
                    "JdbcLocks.builder: the DataSource must not be null; pass the application's connection pool");
        }
        return new Builder(dataSource);
    }

    /** Configures a {@link LockClient} over an application's {@link DataSource}. Not thread-safe. */
    public static final class Builder {
        private final DataSource dataSource;
        private TableNames tables = TableNames.defaults();
        private Strategy strategy = Strategy.TABLE;
        private boolean createSchema = true;
        private boolean advisoryHolders;
        private LockOptions options = LockOptions.defaults();

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /**
         * The lock table, default {@code baton_locks}, optionally schema-qualified; the other tables and
         * sequences are named after it.
         *
         * @param table the lock table's name
         * @return this builder
         * @throws LockConfigurationException unless the name is a plain SQL identifier of at most 51
         *     characters, optionally prefixed by a schema and a dot
         */
        public Builder table(String table) {
            this.tables = TableNames.of(table);
            return this;
        }

        /**
         * The locking strategy: {@code table} (default; {@code optimistic} is its alias), {@code pessimistic} or
         * {@code advisory}; whether it supports the database is checked on first use.
         *
         * @param strategy the strategy's name, case-insensitive
         * @return this builder
         * @throws LockConfigurationException for an unknown strategy
         */
        public Builder strategy(String strategy) {
            this.strategy = Strategy.of(strategy, "JdbcLocks.Builder.strategy");
            return this;
        }

        /**
         * Whether missing tables are created on first use (default {@code true}); otherwise they fail
         * the first operation with the DDL to run.
         *
         * @param createSchema {@code true} to create missing tables (needs DDL rights)
         * @return this builder
         */
        public Builder createSchema(boolean createSchema) {
            this.createSchema = createSchema;
            return this;
        }

        /**
         * The client's options (default {@link LockOptions#defaults()}).
         *
         * @param options lease time, renewal, statement timeout and listeners of the client
         * @return this builder
         * @throws LockConfigurationException if {@code options} is null
         */
        public Builder options(LockOptions options) {
            if (options == null) {
                throw new LockConfigurationException(
                        "JdbcLocks.Builder.options: options must not be null; use LockOptions.defaults()");
            }
            this.options = options;
            return this;
        }

        /**
         * Whether the PostgreSQL advisory strategy records each grant's holder, so that {@code baton
         * locks} and {@code LockAdmin} can see and break its locks; default {@code false}, because that
         * row write doubles the server's work per lock.
         *
         * @param advisoryHolders {@code true} to record advisory holders
         * @return this builder
         */
        public Builder advisoryHolders(boolean advisoryHolders) {
            this.advisoryHolders = advisoryHolders;
            return this;
        }

        /**
         * The client. No I/O; see {@link JdbcLocks} for what happens on first use.
         *
         * @return a new client that the caller closes; closing it does not close the {@code DataSource}
         */
        public LockClient build() {
            return Baton.open(
                    new JdbcLockBackend(
                            strategy, dataSource, null, tables, createSchema, options, null, advisoryHolders),
                    options);
        }
    }
}
