package dev.baton.jdbc;

import dev.baton.LockConfigurationException;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.TableNames;
import dev.baton.jdbc.row.JdbcLine;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** The JDBC locking strategies and the dialects each one supports. */
enum Strategy {
    /** One row per name; every change is a compare-and-set on its version, the fencing token. */
    TABLE("table", EnumSet.of(Dialect.H2, Dialect.POSTGRESQL, Dialect.MARIADB)),
    /** SELECT ... FOR UPDATE on the name's row in a transaction held open for the lease. */
    PESSIMISTIC("pessimistic", EnumSet.of(Dialect.POSTGRESQL, Dialect.MARIADB)),
    /** PostgreSQL session advisory locks or MariaDB GET_LOCK, on a connection pinned for the lease. */
    ADVISORY("advisory", EnumSet.of(Dialect.POSTGRESQL, Dialect.MARIADB));

    private final String key;
    private final Set<Dialect> dialects;

    Strategy(String key, Set<Dialect> dialects) {
        this.key = key;
        this.dialects = dialects;
    }

    /** As written in {@code ?strategy=}. */
    String key() {
        return key;
    }

    String backendName() {
        return "jdbc-" + key;
    }

    boolean pinsConnections() {
        return this == PESSIMISTIC || this == ADVISORY;
    }

    /** Whether exclusive grants are renewed many to a statement ({@code BatchRenewal}). */
    boolean batchesRenewals() {
        return !pinsConnections();
    }

    /** Whether a released lock goes to the longest waiting client when asked ({@link JdbcLine}). */
    boolean handsOffFairly() {
        return !pinsConnections();
    }

    /** {@code optimistic} is accepted for the table strategy. */
    static Strategy of(String key, String where) {
        String asked = key == null ? "" : key.strip();
        if (asked.equalsIgnoreCase("optimistic")) {
            return TABLE;
        }
        for (Strategy strategy : values()) {
            if (strategy.key.equalsIgnoreCase(asked)) {
                return strategy;
            }
        }
        throw new LockConfigurationException(where + ": strategy '" + key + "' is not available; use one of "
                + EnumSet.allOf(Strategy.class).stream().map(Strategy::key).collect(Collectors.joining(", "))
                + " (default table)");
    }

    void require(Dialect dialect, String where) {
        if (!dialects.contains(dialect)) {
            throw new LockConfigurationException(where + ": the " + key + " strategy does not support "
                    + dialect.displayName() + "; it supports "
                    + dialects.stream().map(Dialect::displayName).collect(Collectors.joining(", "))
                    + ". Choose another strategy (" + supportedBy(dialect) + " work on " + dialect.displayName()
                    + ")");
        }
    }

    /** The dialect of an application's DataSource, checked against this strategy. */
    Dialect detect(java.sql.Connection connection, String lockName) throws java.sql.SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String where = "Baton lock '" + lockName + "' on " + backendName();
        Dialect d = Dialect.ofProductName(product)
                .orElseThrow(() -> new LockConfigurationException(where + ": the DataSource connects to " + product
                        + ", which the " + key + " strategy does not support"));
        require(d, where);
        return d;
    }

    String listingMethod(TableNames names) {
        String locks = names.locks();
        String permits = " and the live permits in " + names.permits() + ", names filtered by prefix in the client";
        return switch (this) {
            case TABLE -> "reads the held rows of " + locks + " and " + names.readers() + " (waiters from "
                    + names.waiters() + ")" + permits;
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
                .filter(s -> s.dialects.contains(dialect))
                .map(Strategy::key)
                .collect(Collectors.joining(", "))
                .toLowerCase(Locale.ROOT);
    }
}
