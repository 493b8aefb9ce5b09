package dev.baton.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Issue #27 item 3, where Baton's advisory strategy spends what the raw advisory pair does not: the
 * statements Baton's PostgreSQL advisory protocol sends, sent bare (plain JDBC on a HikariCP pool of
 * 10, a connection pinned per grant, no lease object, no renewal, no library), so that one run splits
 * the gap between the raw pair and Baton into what the SQL does (draw the fencing token, bound the
 * session's idleness to the lease, restore it on unlock) and what the library adds.
 *
 * <p>The SQL is the shape of {@code PgAdvisoryStatements} in baton-jdbc (without the holders table,
 * as Baton's default), written out here because that class is package-private: change both together.
 */
final class BareAdvisorySubjects {
    private static final String SEQUENCE = "bench_bare_adv_seq";
    private static final String EXPIRY = "floor(date_part('epoch', clock_timestamp()) * 1000)::bigint + ?";
    /** ? = key, lease millis, idle timeout (text). */
    private static final String TRY =
            """
            WITH l AS (SELECT pg_try_advisory_lock(?) AS ok, current_setting('idle_session_timeout') AS idle_before),
            g AS (SELECT nextval('%s') AS token, %s AS expiry, idle_before
                  FROM l WHERE l.ok AND set_config('idle_session_timeout', ?, false) IS NOT NULL)
            SELECT token, expiry, idle_before FROM g"""
                    .formatted(SEQUENCE, EXPIRY);
    /** ? = lock_timeout millis (text), key, lease millis, idle timeout (text). */
    private static final String WAIT =
            """
            WITH t AS MATERIALIZED (SELECT set_config('lock_timeout', ?, true) AS lt),
            l AS MATERIALIZED (SELECT pg_advisory_lock(?)::text AS held,
                                      current_setting('idle_session_timeout') AS idle_before FROM t),
            g AS MATERIALIZED (SELECT nextval('%s') AS token, %s AS expiry, idle_before
                  FROM l WHERE set_config('idle_session_timeout', ?, false) IS NOT NULL)
            SELECT token, expiry, idle_before FROM g"""
                    .formatted(SEQUENCE, EXPIRY);
    /**
     * The try on a connection of Baton's own pool whose idle bound is already the lease (it is not
     * restored on unlock there, so it is not set again); ? = key, lease millis.
     */
    private static final String TRY_KEPT =
            """
            WITH l AS (SELECT pg_try_advisory_lock(?) AS ok, current_setting('idle_session_timeout') AS idle_before),
            g AS MATERIALIZED (SELECT nextval('%s') AS token, %s AS expiry, idle_before FROM l WHERE l.ok)
            SELECT token, expiry, idle_before FROM g"""
                    .formatted(SEQUENCE, EXPIRY);
    /** ? = key, the idle timeout the session had. */
    private static final String UNLOCK = "SELECT pg_advisory_unlock(?), set_config('idle_session_timeout', ?, false)";

    private static final long LEASE_MILLIS =
            JdbcBenchBackends.OPTIONS.leaseTime().toMillis();

    private BareAdvisorySubjects() {}

    /** The bare try statement, retried as the raw pair is; and the bare queued wait. */
    static List<LockSubject> of(String url, String user, String password) {
        try (HikariDataSource setup = JdbcRawSubjects.pool(url, user, password, 1);
                Connection c = setup.getConnection();
                Statement st = c.createStatement()) {
            st.execute("CREATE SEQUENCE IF NOT EXISTS " + SEQUENCE);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create the bare subjects' sequence: " + e, e);
        }
        return List.of(
                new Bare("bare advisory statements, try", url, user, password, false, false),
                new Bare("bare advisory statements, try, idle bound kept", url, user, password, false, true),
                new Bare("bare advisory statements, queued wait", url, user, password, true, false));
    }

    private record Bare(String name, String url, String user, String password, boolean queued, boolean kept)
            implements LockSubject {
        @Override
        public Client newClient() {
            HikariDataSource pool = JdbcRawSubjects.pool(url, user, password, 10);
            return new Client() {
                @Override
                public Held acquire(String lockName) {
                    long key = lockName.hashCode();
                    return queued
                            ? once(pool, key, true, false)
                            : JdbcRawSubjects.retry(() -> once(pool, key, false, kept));
                }

                @Override
                public void close() {
                    pool.close();
                }
            };
        }

        /** One attempt on a connection of its own, kept while held; null when the lock was busy. */
        private static Held once(HikariDataSource pool, long key, boolean queued, boolean kept) {
            try {
                Connection c = pool.getConnection();
                String idleBefore = null;
                try (PreparedStatement ps = c.prepareStatement(queued ? WAIT : kept ? TRY_KEPT : TRY)) {
                    int i = 1;
                    if (queued) {
                        ps.setString(i++, "60000");
                    }
                    ps.setLong(i++, key);
                    ps.setLong(i++, LEASE_MILLIS);
                    if (!kept) {
                        ps.setString(i, Long.toString(LEASE_MILLIS + 1000));
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            rs.getLong(1);
                            rs.getLong(2);
                            idleBefore = rs.getString(3);
                        }
                    }
                } finally {
                    if (idleBefore == null) {
                        c.close();
                    }
                }
                if (idleBefore == null) {
                    return null;
                }
                if (kept) {
                    return JdbcRawSubjects.unlockingOn(c, "SELECT pg_advisory_unlock(?)", ps -> ps.setLong(1, key));
                }
                String restore = idleBefore;
                return JdbcRawSubjects.unlockingOn(c, UNLOCK, ps -> {
                    ps.setLong(1, key);
                    ps.setString(2, restore);
                });
            } catch (SQLException e) {
                throw new IllegalStateException("bare advisory attempt failed: " + e, e);
            }
        }
    }
}
