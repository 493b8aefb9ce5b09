package dev.baton.jdbc.pinned;

import dev.baton.LockMode;
import dev.baton.jdbc.internal.AdvisoryKeys;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSchema;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.jdbc.internal.TableNames;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;

/**
 * The {@code advisory} strategy on PostgreSQL: a session advisory lock ({@code pg_try_advisory_lock},
 * {@code _shared} for read locks) held on the grant's pinned session. Waiters queue in PostgreSQL's
 * lock manager ({@code pg_advisory_lock} bounded by a transaction-local {@code lock_timeout}), so a
 * release hands the lock over at once and in queue order. One statement each:
 *
 * <ul>
 *   <li>Acquire (try or wait): takes the lock and, only if it got it, draws the fencing token from the
 *       sequence {@code <table>_adv_seq} (while the lock is held, so tokens strictly increase per
 *       name; a sequence writes no row and needs no commit flush) and bounds the session's idleness
 *       ({@code idle_session_timeout}) by the lease, so that PostgreSQL (14+) ends the session, and
 *       frees the lock, of a client that vanished without closing its socket.
 *   <li>Renew: sets the idle bound again, which proves the session (and so the lock) alive.
 *   <li>Release: unlocks. On an application's connection the same statement restores the idle bound
 *       the session had; on a connection of Baton's own pool the bound stays, and the next grant on
 *       that connection with the same lease does not set it again. (A pooled connection left idle for
 *       a lease is then ended by the server, and the pool opens a new one when it is next needed.)
 * </ul>
 *
 * <p>Keys: {@link AdvisoryKeys#key}. Operators' listing and forced release: {@link PgAdvisoryHolders}.
 * Does not work behind a transaction-pooling PgBouncer: the session would not stay with the client.
 */
final class PgAdvisoryStatements implements PinnedStatements {
    /** The expiry (database clock plus the lease, ? = lease millis) in epoch millis, rounded down. */
    private static final String EXPIRY = "floor(date_part('epoch', clock_timestamp()) * 1000)::bigint + ?";
    /** Renews; ? = idle timeout (text), lease millis. */
    private static final String RENEW = "SELECT set_config('idle_session_timeout', ?, false), " + EXPIRY;

    /** What release must know: the key, and the idle bound to restore (null: leave it, Baton's connection). */
    private record Held(long key, String idleBefore) {}

    private final JdbcProtocol.Context context;
    private final TableNames names;
    private final Map<String, String> probes;
    /** Whether the connections are Baton's own: then a connection's idle bound stays between grants. */
    private final boolean owned;
    /** The idle bound each of Baton's own connections has now, in millis (its physical connection). */
    private final Map<Connection, Long> idleSet = Collections.synchronizedMap(new WeakHashMap<>());
    /** Indexed by {@link #variant}: try/wait, exclusive/shared, setting the idle bound or not. */
    private final String[] acquire = new String[8];

    /** Indexed by shared, then restoring the idle bound. */
    private final String[][] unlock = new String[2][2];

    final PgAdvisoryHolders holders;

    PgAdvisoryStatements(JdbcProtocol.Context context) {
        this.context = context;
        this.names = context.names();
        this.owned = context.connections().ownsPool();
        this.holders = new PgAdvisoryHolders(context);
        String sequence = names.locks() + "_adv_seq";
        boolean records = holders.records;
        probes = records
                ? Map.of(sequence, JdbcSchema.probe(sequence), holders.table, JdbcSchema.probe(holders.table))
                : Map.of(sequence, JdbcSchema.probe(sequence));
        for (int i = 0; i < acquire.length; i++) {
            acquire[i] = acquire((i & 4) != 0, (i & 2) != 0, (i & 1) != 0, sequence);
        }
        // ? = [name,] key [, the idle bound the session had].
        String forget = records ? "WITH d AS (" + holders.forget + ") " : "";
        for (int shared = 0; shared < 2; shared++) {
            String keeping = forget + "SELECT pg_advisory_unlock" + (shared == 1 ? "_shared" : "") + "(?)";
            unlock[shared][0] = keeping;
            unlock[shared][1] = keeping + ", set_config('idle_session_timeout', ?, false)";
        }
    }

    private static int variant(boolean wait, boolean shared, boolean setsIdle) {
        return (wait ? 4 : 0) | (shared ? 2 : 0) | (setsIdle ? 1 : 0);
    }

    /**
     * One acquire statement: the lock and, only if it was taken, the token, the expiry and the idle
     * bound the session had (and the bound set, and the holder recorded). MATERIALIZED, in the wait: the
     * timeout is set before the lock waits, and the lock is held before the token is drawn. ? = [lock
     * timeout (text),] key, lease millis [, idle timeout (text)] [, the record's].
     */
    private String acquire(boolean wait, boolean shared, boolean setsIdle, String sequence) {
        String mode = shared ? "_shared" : "";
        String lock = wait
                ? "WITH t AS MATERIALIZED (SELECT set_config('lock_timeout', ?, true) AS lt),"
                        + " l AS MATERIALIZED (SELECT pg_advisory_lock" + mode + "(?)::text IS NOT NULL AS ok,"
                        + " current_setting('idle_session_timeout') AS idle_before FROM t)"
                : "WITH l AS (SELECT pg_try_advisory_lock" + mode + "(?) AS ok,"
                        + " current_setting('idle_session_timeout') AS idle_before)";
        String set = setsIdle ? " AND set_config('idle_session_timeout', ?, false) IS NOT NULL" : "";
        String record = holders.records ? ", " + holders.record.formatted(shared ? "S" : "X") : "";
        return lock + ", g AS MATERIALIZED (SELECT nextval('" + sequence + "') AS token, " + EXPIRY
                + " AS expiry, idle_before FROM l WHERE l.ok" + set + ")" + record
                + " SELECT token, expiry, idle_before FROM g";
    }

    @Override
    public Map<String, String> probes() {
        return probes;
    }

    @Override
    public Optional<Taken> tryOn(JdbcSession db, LockRequest request) throws SQLException {
        return take(db, request, -1);
    }

    /**
     * A statement that fails (the timeout, a cancel, a failed token draw) may have taken the lock before
     * failing, and a session lock survives the rollback: it is given back at once ({@code
     * pg_advisory_unlock} of a lock not held only warns); if even that fails the connection is
     * aborted, so that it never goes back holding it.
     */
    @Override
    public Optional<Taken> waitOn(JdbcSession db, LockRequest request, long waitMillis) throws SQLException {
        try {
            return take(db, request, waitMillis);
        } catch (SQLException e) {
            try {
                unlock(db, request.name(), request.mode() == LockMode.SHARED, key(request), null);
            } catch (SQLException undo) {
                e.addSuppressed(undo);
                try {
                    db.connection.abort(Runnable::run);
                } catch (SQLException | RuntimeException aborting) {
                    e.addSuppressed(aborting);
                }
                throw e;
            }
            if ("55P03".equals(e.getSQLState())) {
                return Optional.empty(); // lock_timeout ended the slice
            }
            throw e;
        }
    }

    /** A try ({@code waitMillis} negative) or one bounded wait, in one statement. */
    private Optional<Taken> take(JdbcSession db, LockRequest request, long waitMillis) throws SQLException {
        long key = key(request);
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        long idle = JdbcTime.idleMillis(lease);
        Connection physical = owned ? db.connection.unwrap(Connection.class) : null;
        Long had = physical == null ? null : idleSet.get(physical);
        boolean setsIdle = had == null || had != idle;
        List<Object> params = new ArrayList<>(9);
        if (waitMillis >= 0) {
            params.add(String.valueOf(waitMillis));
        }
        params.add(key);
        params.add(lease);
        if (setsIdle) {
            params.add(String.valueOf(idle));
        }
        holders.bindRecord(params, request, key, lease);
        String sql = acquire[variant(waitMillis >= 0, request.mode() == LockMode.SHARED, setsIdle)];
        JdbcSession.Rows<Taken> taken = rs -> new Taken(
                rs.getLong(1), Instant.ofEpochMilli(rs.getLong(2)), new Held(key, owned ? null : rs.getString(3)));
        Optional<Taken> got = waitMillis >= 0
                ? StatementWait.first(db.connection, sql, taken, params.toArray())
                : db.first(sql, taken, params.toArray());
        if (got.isPresent() && physical != null) {
            idleSet.put(physical, idle);
        }
        return got;
    }

    private long key(LockRequest request) {
        return AdvisoryKeys.key(names, request.name());
    }

    @Override
    public void undo(JdbcSession db, LockRequest request, Taken taken) throws SQLException {
        Held held = (Held) taken.state();
        if (!unlock(db, request.name(), request.mode() == LockMode.SHARED, held.key(), held.idleBefore())) {
            throw new SQLException("the advisory lock granted during a cancel was not held", "55000");
        }
    }

    @Override
    public Optional<Instant> renew(JdbcSession db, Grant grant, Object state, long leaseMillis) throws SQLException {
        long idle = JdbcTime.idleMillis(leaseMillis);
        Optional<Instant> expiry =
                db.first(RENEW, rs -> Instant.ofEpochMilli(rs.getLong(2)), String.valueOf(idle), leaseMillis);
        if (owned) {
            idleSet.put(db.connection.unwrap(Connection.class), idle);
        }
        return expiry;
    }

    @Override
    public boolean release(JdbcSession db, Grant grant, Object state) throws SQLException {
        Held held = (Held) state;
        return unlock(db, grant.name(), grant.mode() == LockMode.SHARED, held.key(), held.idleBefore());
    }

    /** Unlocks (forgetting the holder's row, when recording); whether this session held the lock. */
    private boolean unlock(JdbcSession db, String name, boolean shared, long key, String idleBefore)
            throws SQLException {
        String sql = unlock[shared ? 1 : 0][idleBefore == null ? 0 : 1];
        Object[] params = holders.records
                ? (idleBefore == null ? new Object[] {name, key} : new Object[] {name, key, idleBefore})
                : (idleBefore == null ? new Object[] {key} : new Object[] {key, idleBefore});
        return db.first(sql, rs -> rs.getBoolean(1), params).orElse(false);
    }

    @Override
    public Holders holders() {
        return holders;
    }
}
