package dev.baton.jdbc;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.jdbc.internal.TableNames;
import javax.sql.DataSource;

/**
 * Locks in a database the application already has a connection pool for (H2, PostgreSQL or
 * MariaDB/MySQL), with the {@code table} strategy by default (H2, PostgreSQL), or {@code optimistic}
 * (all three), {@code pessimistic} or {@code advisory} (PostgreSQL, MariaDB/MySQL; no read locks with
 * advisory on MariaDB).
 *
 * <pre>{@code
 * LockClient locks = JdbcLocks.builder(dataSource)
 *         .table("baton_locks")
 *         .createSchema(true)
 *         .options(LockOptions.defaults())
 *         .build();
 * }</pre>
 *
 * <p>Guarantees: the same as every Baton client (mutual exclusion while a lease is valid, fencing
 * tokens that strictly increase per lock name, expiry on the database's clock). Each lock operation
 * borrows a connection, runs one short READ COMMITTED transaction of its own, and returns the
 * connection with its auto-commit and isolation settings as it found them. Pass a plain pool, not a
 * transaction-aware proxy: the lock's transactions must not join the application's. The {@code
 * pessimistic} and {@code advisory} strategies keep one connection per held lock and per waiter
 * queued in the database. With {@code table} and {@code optimistic} on PostgreSQL, waiters are woken
 * by LISTEN/NOTIFY over one extra listener connection per client, opened outside the pool for a
 * HikariCP pool or a {@code PGSimpleDataSource} and borrowed from other DataSources while waiters
 * exist.
 *
 * <p>The client never closes the {@code DataSource}: closing the client releases its leases and
 * leaves the pool to the application.
 *
 * <p>Failure behaviour: the builder's setters reject bad values at once with {@link
 * LockConfigurationException}. {@link Builder#build()} does no I/O; the database product is detected
 * and the tables checked (and created when allowed) on first use, where an unsupported database or
 * missing tables with {@code createSchema(false)} fail with {@link LockConfigurationException} and an
 * unreachable database with {@link dev.baton.LockUnavailableException}. Statements are bounded by
 * {@link LockOptions#operationTimeout()}; waiting for a connection is bounded by the pool's own
 * connection timeout, which should not be longer.
 */
public final class JdbcLocks {

    private JdbcLocks() {}

    /**
     * Starts a client for the database behind {@code dataSource}.
     *
     * @param dataSource the application's connection pool; locks borrow connections from it and
     *     return them, except while a strategy pins one to a held lock
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
         * The lock table, default {@code baton_locks}; optionally schema-qualified ({@code
         * app.baton_locks}). The readers table and the fencing sequence are named {@code
         * <table>_readers} and {@code <table>_fencing_seq}.
         *
         * @throws LockConfigurationException unless the name is 1 to 51 letters, digits or
         *     underscores, not starting with a digit, optionally prefixed by a schema and a dot
         *
         * @param table the lock table's name, optionally schema-qualified
         * @return this builder
         */
        public Builder table(String table) {
            this.tables = TableNames.of(table);
            return this;
        }

        /**
         * The locking strategy: {@code table} (default), {@code optimistic}, {@code pessimistic} or
         * {@code advisory}. Whether it supports the database is checked on first use, when the
         * database is known.
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
         * Whether missing tables are created on first use (default {@code true}). Without it, missing
         * tables fail the first operation with a message that prints the DDL to run.
         *
         * @param createSchema {@code true} to create missing tables (needs DDL rights), {@code false}
         *     to require that they exist
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
         * Whether the PostgreSQL advisory strategy records each grant's holder (owner, token,
         * description) in its holders table, so that {@code baton locks} and {@code LockAdmin} can
         * name and break its locks; default {@code false}, because the row written by every acquire
         * and unlock doubles the server's work per pair. The other strategies record holders in the
         * row they write anyway, whatever this says.
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
         * @return a new client that the caller closes; closing it does not close the {@code
         *     DataSource}
         */
        public LockClient build() {
            return Baton.open(
                    JdbcLockBackendProvider.backend(
                            strategy, dataSource, null, tables, createSchema, options, null, advisoryHolders),
                    options);
        }
    }
}
