package dev.baton.jdbc;

import java.util.Locale;
import java.util.Map;

/**
 * Every statement of the MariaDB named-lock protocol ({@link MariaDbNamedLockProtocol}), for the
 * fencing table {@code <table>_fencing}; the comment above each lists its parameters.
 */
final class MariaDbNamedLockStatements {
    /**
     * Counts the name's grants; ? = name. LAST_INSERT_ID(expr) makes the session remember the new
     * token for {@link #lastToken}.
     */
    final String upsertToken;
    /** The token {@link #upsertToken} wrote. */
    final String lastToken = "SELECT LAST_INSERT_ID()";
    /** Renews: any statement resets the session's idle clock; this one also proves the lock is its. ? = name. */
    final String isHeld = "SELECT IS_USED_LOCK(?) = CONNECTION_ID()";
    /** ? = server-side name; 1 when this session held the lock and released it. */
    final String releaseLock = "SELECT RELEASE_LOCK(?)";
    /** The namespace of server-side names when the table is not schema-qualified. */
    final String database = "SELECT DATABASE()";

    final Map<String, String> probes;

    MariaDbNamedLockStatements(TableNames names) {
        String fencing = names.locks() + "_fencing";
        probes = Map.of(fencing, JdbcSchema.probe(fencing));
        upsertToken = "INSERT INTO " + fencing + " (lock_name, fencing_token) VALUES (?, LAST_INSERT_ID(1))"
                + " ON DUPLICATE KEY UPDATE fencing_token = LAST_INSERT_ID(fencing_token + 1)";
    }

    /** {@code GET_LOCK} waiting at most {@code waitMillis} (0: a try), and the session's wait_timeout; ? = name. */
    String getLock(long waitMillis) {
        return String.format(Locale.ROOT, "SELECT GET_LOCK(?, %.3f), @@session.wait_timeout", waitMillis / 1000.0);
    }

    /** Bounds (or restores) the session's idleness: {@code wait_timeout} in whole seconds. */
    String setWaitTimeout(long seconds) {
        return "SET SESSION wait_timeout = " + seconds;
    }
}
