package dev.baton.jdbc.internal;

import dev.baton.LockConfigurationException;
import java.util.regex.Pattern;

/** The database objects of every strategy, all named after one configured table. */
public record TableNames(String locks, String readers, String sequence) {
    public static final String DEFAULT_TABLE = "baton_locks";

    // Spliced into SQL, so plain identifiers; 51 characters plus _fencing_seq fit PostgreSQL's 63.
    private static final String IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]{0,50}";
    private static final Pattern TABLE = Pattern.compile("(?:" + IDENTIFIER + "\\.)?" + IDENTIFIER);

    /** The fair line: one row per waiting acquisition. */
    public String waiters() {
        return locks + "_waiters";
    }

    public String semaphores() {
        return locks + "_semaphores";
    }

    /** One row per held permit. */
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
