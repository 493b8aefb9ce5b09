package dev.baton.jdbc.pinned;

import dev.baton.LockMode;
import dev.baton.jdbc.internal.AdvisoryKeys;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSchema;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
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

/** The {@code advisory} strategy on PostgreSQL: an advisory lock on the pinned session (docs/backends/jdbc.md). */
final class PgAdvisoryStatements extends PinnedStatements {
    /** The expiry (database clock plus the lease, ? = lease millis) in epoch millis, rounded down. */
    private static final String EXPIRY = "floor(date_part('epoch', clock_timestamp()) * 1000)::bigint + ?";
    /** ? = idle timeout (text), lease millis. */
    private static final String RENEW = "SELECT set_config('idle_session_timeout', ?, false), " + EXPIRY;

    /** What release must know: the key, and the idle bound to restore (null: leave it, Baton's connection). */
    private record Held(long key, String idleBefore) {}

    /** {@code advisoryHolders=true}: each grant records itself in {@code <table>_adv_holders}. */
    private final boolean records;

    private final String holdersTable;
    private final Map<String, String> probes;
    /** Whether the connections are Baton's own: then a connection's idle bound stays between grants. */
    private final boolean owned;
    /** The idle bound each of Baton's own connections has now, in millis (its physical connection). */
    private final Map<Connection, Long> idleSet = Collections.synchronizedMap(new WeakHashMap<>());

    private final String sequence;
    /** Forgets the session's holder row of a name in the unlock, when recording; ? = name. */
    private final String forget;
    /** A bigint key's lock shows in pg_locks as classid (high half), objid (low half), objsubid 1. */
    private final String list;

    PgAdvisoryStatements(JdbcProtocol.Context context) {
        super(context);
        this.owned = context.connections().ownsPool();
        this.records = context.advisoryHolders();
        this.holdersTable = context.names().locks() + "_adv_holders";
        this.sequence = context.names().locks() + "_adv_seq";
        probes = records
                ? Map.of(sequence, JdbcSchema.probe(sequence), holdersTable, JdbcSchema.probe(holdersTable))
                : Map.of(sequence, JdbcSchema.probe(sequence));
        this.forget = records
                ? "WITH d AS (DELETE FROM " + holdersTable + " WHERE pid = pg_backend_pid() AND lock_name = ?) "
                : "";
        list =
                """
                SELECT h.lock_name, h.lock_mode, h.owner_id, h.fencing_token,
                       floor(date_part('epoch', COALESCE(a.state_change, clock_timestamp())
                             + h.lease_ms * INTERVAL '1 millisecond') * 1000)::bigint,
                       h.holder, h.pid,
                       (SELECT COUNT(*) FROM pg_locks w WHERE w.locktype = 'advisory' AND NOT w.granted
                          AND w.database = k.database AND w.classid = k.classid AND w.objid = k.objid
                          AND w.objsubid = 1)
                FROM %s h
                JOIN pg_locks k ON k.locktype = 'advisory' AND k.granted AND k.pid = h.pid AND k.objsubid = 1
                     AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                     AND k.classid::bigint = ((h.advisory_key >> 32) & 4294967295)
                     AND k.objid::bigint = (h.advisory_key & 4294967295)
                LEFT JOIN pg_stat_activity a ON a.pid = h.pid"""
                        .formatted(holdersTable);
    }

    /**
     * The lock and, only if taken, the token, expiry and previous idle bound; MATERIALIZED orders the wait:
     * timeout, lock, token. The holder's row is an upsert: a crashed session may have left one with its pid.
     * ? = [lock timeout,] key, lease millis [, idle timeout] [, name, key, owner, lease millis, holder].
     */
    private String acquire(boolean wait, boolean shared, boolean setsIdle) {
        String mode = shared ? "_shared" : "";
        String lock = wait
                ? "WITH t AS MATERIALIZED (SELECT set_config('lock_timeout', ?, true) AS lt),"
                        + " l AS MATERIALIZED (SELECT pg_advisory_lock" + mode + "(?)::text IS NOT NULL AS ok,"
                        + " current_setting('idle_session_timeout') AS idle_before FROM t)"
                : "WITH l AS (SELECT pg_try_advisory_lock" + mode + "(?) AS ok,"
                        + " current_setting('idle_session_timeout') AS idle_before)";
        String set = setsIdle ? " AND set_config('idle_session_timeout', ?, false) IS NOT NULL" : "";
        String record = !records
                ? ""
                : ", h AS (INSERT INTO " + holdersTable
                        + " (pid, lock_name, advisory_key, lock_mode, owner_id, fencing_token, lease_ms, holder)"
                        + " SELECT pg_backend_pid(), ?, ?, '" + (shared ? "S" : "X") + "', ?, g.token, ?, ? FROM g"
                        + " ON CONFLICT (pid, lock_name) DO UPDATE SET advisory_key = EXCLUDED.advisory_key,"
                        + " lock_mode = EXCLUDED.lock_mode, owner_id = EXCLUDED.owner_id,"
                        + " fencing_token = EXCLUDED.fencing_token, lease_ms = EXCLUDED.lease_ms,"
                        + " holder = EXCLUDED.holder)";
        return lock + ", g AS MATERIALIZED (SELECT nextval('" + sequence + "') AS token, " + EXPIRY
                + " AS expiry, idle_before FROM l WHERE l.ok" + set + ")" + record
                + " SELECT token, expiry, idle_before FROM g";
    }

    @Override
    public Map<String, String> probes() {
        return probes;
    }

    /** A failed wait may hold the lock past the rollback: unlock it (harmless if not held) or abort the connection. */
    @Override
    Optional<Taken> take(JdbcSession db, LockRequest request, long waitMillis) throws SQLException {
        try {
            return lock(db, request, waitMillis);
        } catch (SQLException e) {
            if (waitMillis == 0) {
                throw e; // a try: the template discards its session
            }
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

    private Optional<Taken> lock(JdbcSession db, LockRequest request, long waitMillis) throws SQLException {
        long key = key(request);
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        long idle = JdbcTime.idleMillis(lease);
        Connection physical = owned ? db.connection.unwrap(Connection.class) : null;
        Long had = physical == null ? null : idleSet.get(physical);
        boolean setsIdle = had == null || had != idle;
        boolean wait = waitMillis > 0;
        List<Object> params = new ArrayList<>(9);
        if (wait) {
            params.add(String.valueOf(waitMillis));
        }
        params.add(key);
        params.add(lease);
        if (setsIdle) {
            params.add(String.valueOf(idle));
        }
        if (records) {
            params.addAll(List.of(request.name(), key, request.ownerId(), lease, request.holder()));
        }
        String sql = acquire(wait, request.mode() == LockMode.SHARED, setsIdle);
        JdbcSession.Rows<Taken> taken = rs -> new Taken(
                rs.getLong(1), Instant.ofEpochMilli(rs.getLong(2)), new Held(key, owned ? null : rs.getString(3)));
        Optional<Taken> got =
                wait ? db.firstWaiting(sql, taken, params.toArray()) : db.first(sql, taken, params.toArray());
        if (got.isPresent() && physical != null) {
            idleSet.put(physical, idle);
        }
        return got;
    }

    private long key(LockRequest request) {
        return AdvisoryKeys.key(context.names(), request.name());
    }

    @Override
    void undo(JdbcSession db, LockRequest request, Taken taken) throws SQLException {
        Held held = (Held) taken.state();
        if (!unlock(db, request.name(), request.mode() == LockMode.SHARED, held.key(), held.idleBefore())) {
            throw new SQLException("the advisory lock granted during a cancel was not held", "55000");
        }
    }

    @Override
    Optional<Instant> renewOn(JdbcSession db, Grant grant, Object state, long leaseMillis) throws SQLException {
        long idle = JdbcTime.idleMillis(leaseMillis);
        Optional<Instant> expiry =
                db.first(RENEW, rs -> Instant.ofEpochMilli(rs.getLong(2)), String.valueOf(idle), leaseMillis);
        if (owned) {
            idleSet.put(db.connection.unwrap(Connection.class), idle);
        }
        return expiry;
    }

    @Override
    boolean releaseOn(JdbcSession db, Grant grant, Object state) throws SQLException {
        Held held = (Held) state;
        return unlock(db, grant.name(), grant.mode() == LockMode.SHARED, held.key(), held.idleBefore());
    }

    /** Unlocks (forgetting the holder's row, when recording); whether this session held the lock. */
    private boolean unlock(JdbcSession db, String name, boolean shared, long key, String idleBefore)
            throws SQLException {
        List<Object> params = new ArrayList<>(3);
        if (records) {
            params.add(name);
        }
        params.add(key);
        if (idleBefore != null) {
            params.add(idleBefore);
        }
        String sql = forget + "SELECT pg_advisory_unlock" + (shared ? "_shared" : "") + "(?)"
                + (idleBefore == null ? "" : ", set_config('idle_session_timeout', ?, false)");
        return db.first(sql, rs -> rs.getBoolean(1), params.toArray()).orElse(false);
    }

    /** Without the holders table advisory locks cannot be named: the listing fails, saying how to turn it on. */
    @Override
    List<Holding> holders(String what) {
        if (!records) {
            String create =
                    JdbcSchema.statementsOf(JdbcSchema.ddl("advisory", Dialect.POSTGRESQL, context.names())).stream()
                            .filter(statement -> statement.contains(holdersTable))
                            .findFirst()
                            .orElseThrow();
            throw new UnsupportedOperationException("Baton lock '" + what + "' on " + context.backendName()
                    + ": PostgreSQL advisory locks are named only in the table " + holdersTable
                    + ", which this client does not write: turn it on with advisoryHolders=true in the URL"
                    + " (JdbcLocks.builder(...).advisoryHolders(true)) on every client, at the cost of a row"
                    + " write per acquire and unlock; with createSchema=false create it first: " + create);
        }
        return read(what, list, PinnedStatements::holding);
    }

    @Override
    void ended(JdbcSession db, String name, Holding holding) throws SQLException {
        db.update("DELETE FROM " + holdersTable + " WHERE pid = ? AND lock_name = ?", (int) holding.session(), name);
    }
}
