package dev.baton.jdbc.internal;

import dev.baton.LockConfigurationException;
import java.util.regex.Pattern;

/**
 * The database objects of the table strategy, all derived from one configured table name. The other
 * strategies' objects and the semaphore tables of every strategy ({@link #semaphores()}, {@link
 * #permits()}) are named after it too.
 *
 * @param locks the lock table, e.g. {@code baton_locks} or {@code app.baton_locks}
 * @param readers the readers table, {@code <locks>_readers}
 * @param sequence the fencing-token sequence, {@code <locks>_fencing_seq}
 */
public record TableNames(String locks, String readers, String sequence) {
    public static final String DEFAULT_TABLE = "baton_locks";

    // Spliced into SQL, so plain identifiers only; 51 characters plus the longest suffix
    // (_fencing_seq) stay within PostgreSQL's 63-character limit.
    private static final String IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]{0,50}";
    private static final Pattern TABLE = Pattern.compile("(?:" + IDENTIFIER + "\\.)?" + IDENTIFIER);

    /** The fair line's table, {@code <locks>_waiters}: one row per waiting acquisition. */
    public String waiters() {
        return locks + "_waiters";
    }

    /** The semaphores table, {@code <locks>_semaphores}, shared by every strategy ({@code JdbcPermits}). */
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

    /** The names for a configured table name, which must be a plain, optionally qualified identifier. */
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
