package dev.baton.jdbc;

import dev.baton.LockConfigurationException;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.TableNames;
import dev.baton.jdbc.row.JdbcLine;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The JDBC locking strategies and the dialects each one supports. Asking for a pair that is not
 * supported fails with a {@link LockConfigurationException} that lists the pairs that are.
 */
enum Strategy {
    /** One row per held name; insert decides, guarded updates take over expired rows. */
    TABLE("table", EnumSet.of(Dialect.H2, Dialect.POSTGRESQL)),
    /** One row per name that is never deleted; every change is a compare-and-set on its version. */
    OPTIMISTIC("optimistic", EnumSet.of(Dialect.H2, Dialect.POSTGRESQL, Dialect.MARIADB)),
    /** SELECT ... FOR UPDATE on the name's row in a transaction held open for the lease. */
    PESSIMISTIC("pessimistic", EnumSet.of(Dialect.POSTGRESQL, Dialect.MARIADB)),
    /**
     * The database's own named locks on a connection pinned for the lease: PostgreSQL session advisory
     * locks, MariaDB/MySQL GET_LOCK (no read locks there).
     */
    ADVISORY("advisory", EnumSet.of(Dialect.POSTGRESQL, Dialect.MARIADB));

    private final String key;
    private final String backendName;
    private final Set<Dialect> dialects;

    Strategy(String key, Set<Dialect> dialects) {
        this.key = key;
        this.backendName = "jdbc-" + key;
        this.dialects = dialects;
    }

    /** As written in {@code ?strategy=}. */
    String key() {
        return key;
    }

    /** As it appears in a backend's name, e.g. {@code jdbc-optimistic}. */
    String backendName() {
        return backendName;
    }

    /** Whether a held lock keeps a connection of the pool for its lease. */
    boolean pinsConnections() {
        return this == PESSIMISTIC || this == ADVISORY;
    }

    /**
     * Whether lock waiters queue inside the database (row locks, advisory or named locks); the
     * others poll, woken by notifications or the fair queue. Permit waiters always poll.
     */
    boolean queuesWaiters() {
        return pinsConnections();
    }

    /** Whether exclusive grants are renewed many to a statement ({@code BatchRenewal}). */
    boolean batchesRenewals() {
        return !pinsConnections();
    }

    /**
     * Whether a released lock goes to the longest waiting client before a re-acquire by the releasing
     * one when asked ({@link JdbcLine}); the others wait in the database's own queue either way.
     */
    boolean handsOffFairly() {
        return !queuesWaiters();
    }

    /** Why a DataSource of the database {@code product}, which Baton does not know, is refused. */
    String refusesProduct(String product) {
        return this == TABLE
                ? "the DataSource connects to " + product + ", but the table strategy supports only H2 and PostgreSQL"
                : "the DataSource connects to " + product + ", which the " + key + " strategy does not support";
    }

    boolean supports(Dialect dialect) {
        return dialects.contains(dialect);
    }

    /**
     * The strategy named {@code key}.
     *
     * @throws LockConfigurationException for an unknown name
     */
    static Strategy of(String key, String where) {
        for (Strategy strategy : values()) {
            if (strategy.key.equalsIgnoreCase(key == null ? "" : key.strip())) {
                return strategy;
            }
        }
        throw new LockConfigurationException(where + ": strategy '" + key + "' is not available; use one of "
                + EnumSet.allOf(Strategy.class).stream().map(Strategy::key).collect(Collectors.joining(", "))
                + " (default table)");
    }

    /**
     * Fails unless this strategy supports {@code dialect}.
     *
     * @throws LockConfigurationException naming the pair and the supported dialects
     */
    void require(Dialect dialect, String where) {
        if (!supports(dialect)) {
            throw new LockConfigurationException(where + ": the " + key + " strategy does not support "
                    + dialect.displayName() + "; it supports "
                    + dialects.stream().map(Dialect::displayName).collect(Collectors.joining(", "))
                    + ". Choose another strategy (" + supportedBy(dialect) + " work on " + dialect.displayName()
                    + ")");
        }
    }

    /**
     * The dialect of an application's DataSource, checked against this strategy.
     *
     * @throws LockConfigurationException for a database Baton does not know or this strategy does not support
     */
    Dialect detect(java.sql.Connection connection, String lockName) throws java.sql.SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String where = "Baton lock '" + lockName + "' on " + backendName;
        Dialect d = Dialect.ofProductName(product)
                .orElseThrow(() -> new LockConfigurationException(where + ": " + refusesProduct(product)));
        require(d, where);
        return d;
    }

    /** How the backend lists its locks ({@link JdbcLockBackend#listingMethod}), by the tables it reads. */
    String listingMethod(TableNames names) {
        String locks = names.locks();
        String permits = " and the live permits in " + names.permits() + ", names filtered by prefix in the client";
        return switch (this) {
            case TABLE -> "reads the live rows of " + locks + " and " + names.readers() + " (waiters from " + locks
                    + "_waiters)" + permits;
            case OPTIMISTIC -> "reads the held rows of " + locks + "_opt and " + locks + "_opt_readers (waiters from "
                    + locks + "_opt_waiters)" + permits;
            case PESSIMISTIC -> "PostgreSQL: the sessions in pg_stat_activity whose last statement names a grant;"
                    + " MariaDB: the rows of " + locks + "_pess_holders whose connection holds its marker lock;"
                    + permits;
            case ADVISORY -> "PostgreSQL: the rows of " + locks + "_adv_holders whose session holds the advisory"
                    + " lock (pg_locks); MariaDB: the rows of " + locks + "_fencing whose connection holds the named"
                    + " lock (IS_USED_LOCK);" + permits;
        };
    }

    private static String supportedBy(Dialect dialect) {
        return EnumSet.allOf(Strategy.class).stream()
                .filter(s -> s.supports(dialect))
                .map(Strategy::key)
                .collect(Collectors.joining(", "))
                .toLowerCase(Locale.ROOT);
    }
}
