package dev.baton.jdbc;

import dev.baton.spi.LockRequest;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;

/**
 * Every statement of the PostgreSQL advisory protocol ({@link PgAdvisoryProtocol}), for the
 * sequence {@code <table>_adv_seq} and, when it exists, the holders table {@code <table>_adv_holders}
 * ({@link PgAdvisoryHolders}); the comment above each lists its parameters.
 */
final class PgAdvisoryStatements {
    /**
     * The expiry (database clock plus the lease bound as a parameter) in epoch milliseconds, rounded
     * down (a little early is safe): reading a number costs the driver far less than a timestamp.
     */
    private static final String EXPIRY_MILLIS = "floor(date_part('epoch', clock_timestamp()) * 1000)::bigint + ?";

    final String acquireExclusive;
    final String acquireShared;
    final String unlockExclusive;
    final String unlockShared;
    final String waitExclusive;
    final String waitShared;
    /** Gives back a lock if this session holds it (else only a server warning); ? = key. */
    final String unlockIfHeldExclusive = "SELECT pg_advisory_unlock(?)";

    final String unlockIfHeldShared = "SELECT pg_advisory_unlock_shared(?)";
    /** Renews: proves the session alive and bounds its idleness again; ? = idle timeout (text), lease. */
    final String renew = "SELECT set_config('idle_session_timeout', ?, false),"
            + " clock_timestamp() + (? * INTERVAL '1 millisecond')";

    final Map<String, String> probes;
    /** The holders table, and the statement that creates it (for the message that says how to record holders). */
    final String holders;

    final String createHolders;
    /** Whether grants are recorded in the holders table ({@code advisoryHolders=true}). */
    final boolean records;
    /**
     * Every held grant recorded in the holders table whose session holds its lock now: (name, mode,
     * owner, token, expiry in epoch millis, holder, waiters queued for the key, pid); no parameter.
     * The expiry is when the idle session would end: its last change of state plus the lease.
     */
    final String list;
    /** Forgets a broken holder's row; ? = pid, name. */
    final String forgetHolder;

    PgAdvisoryStatements(TableNames names, boolean records) {
        String sequence = names.locks() + "_adv_seq";
        this.holders = names.locks() + "_adv_holders";
        this.records = records;
        probes = records
                ? Map.of(sequence, JdbcSchema.probe(sequence), holders, JdbcSchema.probe(holders))
                : Map.of(sequence, JdbcSchema.probe(sequence));
        createHolders = JdbcSchema.statementsOf(JdbcSchema.ddl("advisory", Dialect.POSTGRESQL, names)).stream()
                .filter(statement -> statement.contains(holders))
                .findFirst()
                .orElseThrow();
        // Recording, a grant also records its holder (? = name, key, owner, lease, holder) in the same
        // statement, only when the lock was taken; an upsert, as a crashed session may have left a
        // row with the same pid.
        String record = !records
                ? ""
                : """
                , h AS (INSERT INTO %s (pid, lock_name, advisory_key, lock_mode, owner_id, fencing_token, lease_ms, holder)
                        SELECT pg_backend_pid(), ?, ?, '%%s', ?, g.token, ?, ? FROM g
                        ON CONFLICT (pid, lock_name) DO UPDATE SET advisory_key = EXCLUDED.advisory_key,
                          lock_mode = EXCLUDED.lock_mode, owner_id = EXCLUDED.owner_id,
                          fencing_token = EXCLUDED.fencing_token, lease_ms = EXCLUDED.lease_ms,
                          holder = EXCLUDED.holder)"""
                        .formatted(holders);
        // ? = key, lease millis, idle timeout (text) [, the record's]. The CTE l runs first (and reads
        // the session's idle_session_timeout before it is changed); g yields a row, and set_config
        // and nextval run, only when the lock was taken.
        String acquire =
                """
                WITH l AS (SELECT %s(?) AS ok, current_setting('idle_session_timeout') AS idle_before),
                g AS (SELECT nextval('%s') AS token, %s AS expiry, idle_before
                      FROM l WHERE l.ok AND set_config('idle_session_timeout', ?, false) IS NOT NULL)%s
                SELECT token, expiry, idle_before FROM g""";
        this.acquireExclusive =
                acquire.formatted("pg_try_advisory_lock", sequence, EXPIRY_MILLIS, record.formatted("X"));
        this.acquireShared =
                acquire.formatted("pg_try_advisory_lock_shared", sequence, EXPIRY_MILLIS, record.formatted("S"));
        // ? = [name,] key, the idle_session_timeout the session had: the connection goes back as it came.
        String unlock = (records
                        ? "WITH d AS (DELETE FROM " + holders + " WHERE pid = pg_backend_pid()" + " AND lock_name = ?) "
                        : "")
                + "SELECT %s(?), set_config('idle_session_timeout', ?, false)";
        this.unlockExclusive = unlock.formatted("pg_advisory_unlock");
        this.unlockShared = unlock.formatted("pg_advisory_unlock_shared");
        // The queued wait and, once granted, the token, in one round trip (a hand-off to the next
        // waiter then costs one statement). MATERIALIZED: the timeout is set before the lock waits,
        // and the lock is held before the token is drawn. The idle bound is read before it changes.
        // ? = lock_timeout millis (text), key, lease millis, idle timeout (text) [, the record's].
        String wait =
                """
                WITH t AS MATERIALIZED (SELECT set_config('lock_timeout', ?, true) AS lt),
                l AS MATERIALIZED (SELECT %s(?)::text AS held, current_setting('idle_session_timeout') AS idle_before
                                   FROM t),
                g AS MATERIALIZED (SELECT nextval('%s') AS token, %s AS expiry, idle_before
                      FROM l WHERE set_config('idle_session_timeout', ?, false) IS NOT NULL)%s
                SELECT token, expiry, idle_before FROM g""";
        this.waitExclusive = wait.formatted("pg_advisory_lock", sequence, EXPIRY_MILLIS, record.formatted("X"));
        this.waitShared = wait.formatted("pg_advisory_lock_shared", sequence, EXPIRY_MILLIS, record.formatted("S"));
        // A bigint key's lock shows in pg_locks as classid (high half), objid (low half), objsubid 1.
        list =
                """
                SELECT h.lock_name, h.lock_mode, h.owner_id, h.fencing_token,
                       floor(date_part('epoch', COALESCE(a.state_change, clock_timestamp())
                             + h.lease_ms * INTERVAL '1 millisecond') * 1000)::bigint,
                       h.holder,
                       (SELECT COUNT(*) FROM pg_locks w WHERE w.locktype = 'advisory' AND NOT w.granted
                          AND w.database = k.database AND w.classid = k.classid AND w.objid = k.objid
                          AND w.objsubid = 1),
                       h.pid
                FROM %s h
                JOIN pg_locks k ON k.locktype = 'advisory' AND k.granted AND k.pid = h.pid AND k.objsubid = 1
                     AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                     AND k.classid::bigint = ((h.advisory_key >> 32) & 4294967295)
                     AND k.objid::bigint = (h.advisory_key & 4294967295)
                LEFT JOIN pg_stat_activity a ON a.pid = h.pid
                ORDER BY h.lock_name, h.lock_mode, h.fencing_token"""
                        .formatted(holders);
        forgetHolder = "DELETE FROM " + holders + " WHERE pid = ? AND lock_name = ?";
    }

    /**
     * Unlocks (and forgets the holder's row, when recording) with the idle bound the session had;
     * whether this session held the lock.
     */
    boolean unlock(
            java.sql.Connection connection, int timeout, String name, boolean shared, long key, String idleBefore)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(shared ? unlockShared : unlockExclusive)) {
            ps.setQueryTimeout(timeout);
            int index = 1;
            if (records) {
                ps.setString(index++, name);
            }
            ps.setLong(index, key);
            ps.setString(index + 1, idleBefore);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** Renews on the pinned connection ({@link #renew}): the new expiry, on the database's clock. */
    java.time.Instant renew(java.sql.Connection connection, int timeout, long lease) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(renew)) {
            ps.setQueryTimeout(timeout);
            ps.setString(1, String.valueOf(JdbcTime.idleMillis(lease)));
            ps.setLong(2, lease);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return JdbcSession.instant(rs, 2);
            }
        }
    }

    /** Binds the holder record's parameters from {@code index} on, when recording. */
    void bindRecord(PreparedStatement ps, int index, LockRequest request, long key, long lease) throws SQLException {
        if (records) {
            ps.setString(index, request.name());
            ps.setLong(index + 1, key);
            ps.setString(index + 2, request.ownerId());
            ps.setLong(index + 3, lease);
            ps.setString(index + 4, request.holder());
        }
    }
}
