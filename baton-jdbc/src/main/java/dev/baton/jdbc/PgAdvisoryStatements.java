package dev.baton.jdbc;

import java.util.Map;

/**
 * Every statement of the PostgreSQL advisory protocol ({@link PgAdvisoryProtocol}), for the
 * sequence {@code <table>_adv_seq}; the comment above each lists its parameters.
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

    PgAdvisoryStatements(TableNames names) {
        String sequence = names.locks() + "_adv_seq";
        probes = Map.of(sequence, JdbcSchema.probe(sequence));
        // ? = key, idle timeout (text), lease millis. The CTE runs first (and reads the session's
        // idle_session_timeout before it is changed); the SELECT yields a row, and set_config and
        // nextval run, only when the lock was taken.
        String acquire =
                """
                WITH l AS (SELECT %s(?) AS ok, current_setting('idle_session_timeout') AS idle_before)
                SELECT nextval('%s'), %s, idle_before
                FROM l WHERE l.ok AND set_config('idle_session_timeout', ?, false) IS NOT NULL""";
        this.acquireExclusive = acquire.formatted("pg_try_advisory_lock", sequence, EXPIRY_MILLIS);
        this.acquireShared = acquire.formatted("pg_try_advisory_lock_shared", sequence, EXPIRY_MILLIS);
        // ? = key, the idle_session_timeout the session had: the connection goes back as it came.
        String unlock = "SELECT %s(?), set_config('idle_session_timeout', ?, false)";
        this.unlockExclusive = unlock.formatted("pg_advisory_unlock");
        this.unlockShared = unlock.formatted("pg_advisory_unlock_shared");
        // The queued wait and, once granted, the token, in one round trip (a hand-off to the next
        // waiter then costs one statement). MATERIALIZED: the timeout is set before the lock waits,
        // and the lock is held before the token is drawn. The idle bound is read before it changes.
        // ? = lock_timeout millis (text), key, idle timeout (text), lease millis.
        String wait =
                """
                WITH t AS MATERIALIZED (SELECT set_config('lock_timeout', ?, true) AS lt),
                l AS MATERIALIZED (SELECT %s(?)::text AS held, current_setting('idle_session_timeout') AS idle_before
                                   FROM t)
                SELECT nextval('%s'), %s, idle_before
                FROM l WHERE set_config('idle_session_timeout', ?, false) IS NOT NULL""";
        this.waitExclusive = wait.formatted("pg_advisory_lock", sequence, EXPIRY_MILLIS);
        this.waitShared = wait.formatted("pg_advisory_lock_shared", sequence, EXPIRY_MILLIS);
    }
}
