package dev.baton.jdbc.pinned;

import dev.baton.LockInfo;
import dev.baton.LockUnavailableException;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSchema;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Operators' view of the PostgreSQL advisory strategy ({@link PgAdvisoryStatements}).
 *
 * <ul>
 *   <li>List: one query over {@code <table>_adv_holders}, where each grant records itself in the
 *       statement that takes the lock, joined with {@code pg_locks} so that only rows whose session
 *       holds the lock now count; names filtered by prefix here. Waiters are the sessions queued in
 *       {@code pg_advisory_lock} for the same key. Without the holders table (a schema of an older
 *       version that may not be changed), advisory locks cannot be named and the call fails.
 *   <li>Forced release: an advisory lock belongs to its session, which nobody else can unlock; so
 *       it ends the holder's session with {@code pg_terminate_backend(pid, timeout)}, as a DBA would,
 *       and waits for it to end: the lock is then free, queued waiters are granted by PostgreSQL, the
 *       next token comes from the sequence (higher than the broken holder's), and the broken holder's
 *       next renewal fails on its ended connection, so its lease is reported lost. It needs the right
 *       to signal the holder's backend: the same role, or membership in {@code pg_signal_backend}.
 * </ul>
 */
final class PgAdvisoryHolders implements PinnedStatements.Holders {
    private final JdbcProtocol.Context context;
    /** Whether grants are recorded in the holders table ({@code advisoryHolders=true}). */
    final boolean records;
    /** The holders table. */
    final String table;
    /**
     * Records a grant's holder, as a CTE after the grant's {@code g} (an upsert: a crashed session may
     * have left a row with the same pid); %s = the mode, ? = name, key, owner, lease millis, holder.
     */
    final String record;
    /** Forgets this session's row of a name, in the unlock; ? = name. */
    final String forget;
    /**
     * Every recorded grant whose session holds its lock now: (name, mode, owner, token, expiry in epoch
     * millis, holder, pid, waiters queued for the key). The expiry is when the idle session would end.
     * A bigint key's lock shows in pg_locks as classid (high half), objid (low half), objsubid 1.
     */
    private final String list;

    PgAdvisoryHolders(JdbcProtocol.Context context) {
        this.context = context;
        this.records = context.advisoryHolders();
        this.table = context.names().locks() + "_adv_holders";
        record = "h AS (INSERT INTO " + table
                + " (pid, lock_name, advisory_key, lock_mode, owner_id, fencing_token, lease_ms, holder)"
                + " SELECT pg_backend_pid(), ?, ?, '%s', ?, g.token, ?, ? FROM g ON CONFLICT (pid, lock_name) DO UPDATE"
                + " SET advisory_key = EXCLUDED.advisory_key, lock_mode = EXCLUDED.lock_mode,"
                + " owner_id = EXCLUDED.owner_id, fencing_token = EXCLUDED.fencing_token,"
                + " lease_ms = EXCLUDED.lease_ms, holder = EXCLUDED.holder)";
        forget = "DELETE FROM " + table + " WHERE pid = pg_backend_pid() AND lock_name = ?";
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
                LEFT JOIN pg_stat_activity a ON a.pid = h.pid
                ORDER BY h.lock_name, h.lock_mode, h.fencing_token"""
                        .formatted(table);
    }

    /** Adds the holder record's parameters, when recording. */
    void bindRecord(List<Object> params, LockRequest request, long key, long lease) {
        if (records) {
            params.addAll(List.of(request.name(), key, request.ownerId(), lease, request.holder()));
        }
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return SessionHolder.under(rows(prefix), prefix);
    }

    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        List<SessionHolder> hit = SessionHolder.of(rows(name), name, ownerId);
        List<SessionHolder> ended = new ArrayList<>();
        try (JdbcSession db = context.connections().open(false)) {
            for (SessionHolder row : hit) {
                endSession(db, context, name, row.session());
                db.update("DELETE FROM " + table + " WHERE pid = ? AND lock_name = ?", (int) row.session(), name);
                ended.add(row);
            }
        } catch (SQLException e) {
            throw context.failure(name, "force release", e);
        }
        return SessionHolder.group(ended);
    }

    /**
     * Ends a holder's session with {@code pg_terminate_backend} and waits (within the operation
     * timeout) until it has ended, and with it its locks and transaction.
     *
     * @throws LockUnavailableException naming the privilege when the database refuses, or when the
     *     session has not ended in time
     */
    static void endSession(JdbcSession db, JdbcProtocol.Context context, String name, long pid) throws SQLException {
        long waitMillis = context.connections().operationTimeout.toMillis();
        boolean gone;
        try {
            gone = db.first("SELECT pg_terminate_backend(?, ?)", rs -> rs.getBoolean(1), (int) pid, waitMillis)
                    .orElse(false);
        } catch (SQLException e) {
            if (JdbcFailures.isPermission(e)) {
                throw SessionHolder.refused(
                        name,
                        context.backendName(),
                        "pg_terminate_backend(" + pid + ")",
                        "the user needs the holder's role or membership in pg_signal_backend"
                                + " (GRANT pg_signal_backend TO <user>)",
                        e);
            }
            throw e;
        }
        if (!gone) {
            throw new LockUnavailableException("Baton lock '" + name + "' on " + context.backendName()
                    + ": the holder's session (pid " + pid + ") did not end within " + waitMillis
                    + " ms of pg_terminate_backend; call the forced release again");
        }
    }

    private List<SessionHolder> rows(String what) {
        if (!records) {
            String create =
                    JdbcSchema.statementsOf(JdbcSchema.ddl("advisory", Dialect.POSTGRESQL, context.names())).stream()
                            .filter(statement -> statement.contains(table))
                            .findFirst()
                            .orElseThrow();
            throw new UnsupportedOperationException("Baton lock '" + what + "' on " + context.backendName()
                    + ": PostgreSQL advisory locks are named only in the table " + table
                    + ", which this client does not write: turn it on with advisoryHolders=true in the URL"
                    + " (JdbcLocks.builder(...).advisoryHolders(true)) on every client, at the cost of a row"
                    + " write per acquire and unlock; with createSchema=false create it first: " + create);
        }
        return SessionHolder.read(context, what, list);
    }
}
