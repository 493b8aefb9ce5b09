package dev.baton.jdbc;

import java.util.Locale;
import java.util.Map;

/**
 * Every statement of the MariaDB named-lock protocol ({@link MariaDbNamedLockProtocol}) and of its
 * operators' view ({@link MariaDbNamedLockHolders}), for the fencing table {@code <table>_fencing};
 * the comment above each lists its parameters.
 */
final class MariaDbNamedLockStatements {
    /**
     * Counts the name's grants and records the holder and its connection; ? = name, owner, holder,
     * server-side name, lease millis. LAST_INSERT_ID(expr) makes the session remember the new token
     * for {@link #lastToken}.
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
    /**
     * The names whose recorded holder's connection holds the lock now: (name, owner, token, expiry,
     * holder, connection id, server-side name); no parameter. The expiry is when the idle session
     * would end: the lease less the time the connection has been idle.
     */
    final String list;
    /** ? = server-side name: the connection that holds it, or null. */
    final String usedBy = "SELECT IS_USED_LOCK(?)";

    MariaDbNamedLockStatements(TableNames names) {
        String fencing = names.locks() + "_fencing";
        probes = Map.of(fencing, JdbcSchema.probe(fencing));
        upsertToken =
                "INSERT INTO " + fencing + " (lock_name, fencing_token, owner_id, holder, connection_id, server_name,"
                        + " lease_ms) VALUES (?, LAST_INSERT_ID(1), ?, ?, CONNECTION_ID(), ?, ?)"
                        + " ON DUPLICATE KEY UPDATE fencing_token = LAST_INSERT_ID(fencing_token + 1),"
                        + " owner_id = VALUES(owner_id), holder = VALUES(holder), connection_id = VALUES(connection_id),"
                        + " server_name = VALUES(server_name), lease_ms = VALUES(lease_ms)";
        list = "SELECT f.lock_name, f.owner_id, f.fencing_token,"
                + " TIMESTAMPADD(MICROSECOND, (f.lease_ms - COALESCE(p.TIME_MS, 0)) * 1000, UTC_TIMESTAMP(6)),"
                + " f.holder, f.connection_id, f.server_name FROM " + fencing + " f"
                + " LEFT JOIN information_schema.PROCESSLIST p ON p.ID = f.connection_id"
                + " WHERE f.connection_id IS NOT NULL AND IS_USED_LOCK(f.server_name) = f.connection_id"
                + " ORDER BY f.lock_name";
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
