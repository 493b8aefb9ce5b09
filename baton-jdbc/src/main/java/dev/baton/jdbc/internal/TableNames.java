package dev.baton.jdbc.internal;

import dev.baton.LockConfigurationException;
import java.util.regex.Pattern;

/**
 * The three database objects of the table strategy, all derived from one configured table name. The
 * other strategies' objects and the semaphore tables of every strategy ({@link #semaphores()}, {@link
 * #permits()}) are named after it too.
 *
 * @param locks the lock table, e.g. {@code baton_locks} or {@code app.baton_locks}
 * @param readers the readers table, {@code <locks>_readers}
 * @param sequence the fencing-token sequence, {@code <locks>_fencing_seq}
 */
public record TableNames(String locks, String readers, String sequence) {
    public static final String DEFAULT_TABLE = "baton_locks";

    /*
     * The names are spliced into SQL, so only plain identifiers are accepted. 51 characters plus the
     * longest suffix (_fencing_seq, 12; _semaphores, 11) stay within PostgreSQL's 63-character
     * identifier limit.
     */
    private static final String IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]{0,50}";
    private static final Pattern TABLE = Pattern.compile("(?:" + IDENTIFIER + "\\.)?" + IDENTIFIER);

    /**
     * The semaphores table, {@code <locks>_semaphores}: one row per semaphore name with its permit
     * count and token counter (see {@code JdbcPermits}), shared by every strategy.
     */
    public String semaphores() {
        return locks + "_semaphores";
    }

    /** The permit holders table, {@code <locks>_permits}: one row per held permit (see {@code JdbcPermits}). */
    public String permits() {
        return locks + "_permits";
    }

    public static TableNames defaults() {
        return of(DEFAULT_TABLE);
    }

    /**
     * The names for a configured table name.
     *
     * @throws LockConfigurationException if the name is not a plain, optionally schema-qualified
     *     identifier
     */
    public static TableNames of(String table) {
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new LockConfigurationException("Baton JDBC: the table name "
                    + (table == null ? "null" : "'" + table + "'")
                    + " is invalid; use 1 to 51 letters, digits or underscores, not starting with a digit,"
                    + " optionally prefixed by a schema name and a dot (for example baton_locks or"
                    + " app.baton_locks)");
        }
        return new TableNames(table, table + "_readers", table + "_fencing_seq");
    }
}
