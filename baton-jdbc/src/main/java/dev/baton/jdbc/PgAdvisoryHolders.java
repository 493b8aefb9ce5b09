package dev.baton.jdbc;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockUnavailableException;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Operators' view of the PostgreSQL advisory strategy ({@link PgAdvisoryProtocol}).
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
final class PgAdvisoryHolders {
    private final JdbcProtocol.Context context;
    private final PgAdvisoryStatements sql;

    PgAdvisoryHolders(JdbcProtocol.Context context, PgAdvisoryStatements sql) {
        this.context = context;
        this.sql = sql;
    }

    List<LockInfo> list(String prefix) {
        return SessionHolder.group(rows(prefix).stream()
                .filter(row -> row.name().startsWith(prefix))
                .toList());
    }

    List<LockInfo> forceRelease(String name, String ownerId) {
        List<SessionHolder> hit = SessionHolder.of(rows(name), name, ownerId);
        List<SessionHolder> ended = new ArrayList<>();
        try (JdbcSession db = context.connections().open(false)) {
            for (SessionHolder row : hit) {
                endSession(db, context, name, row.session());
                db.update(sql.forgetHolder, (int) row.session(), name);
                ended.add(row);
            }
        } catch (SQLException e) {
            throw context.failure(name, "force release", e);
        }
        return SessionHolder.broken(ended);
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
        if (!sql.records) {
            throw new UnsupportedOperationException("Baton lock '" + what + "' on " + context.backendName()
                    + ": PostgreSQL advisory locks are named only in the table " + sql.holders
                    + ", which this client does not write: turn it on with advisoryHolders=true in the URL"
                    + " (JdbcLocks.builder(...).advisoryHolders(true)) on every client, at the cost of a row"
                    + " write per acquire and unlock; with createSchema=false create it first: " + sql.createHolders);
        }
        try (JdbcSession db = context.connections().open(false)) {
            return db.all(sql.list, rs -> {
                List<SessionHolder> rows = new ArrayList<>();
                while (rs.next()) {
                    Holder holder = Holder.of(
                            rs.getString(3),
                            LockRows.described(rs.getString(6)),
                            rs.getLong(4),
                            Instant.ofEpochMilli(rs.getLong(5)));
                    LockKind kind = "S".equals(rs.getString(2)) ? LockKind.READ : LockKind.MUTEX;
                    rows.add(new SessionHolder(
                            rs.getString(1), kind, holder, OptionalInt.of(rs.getInt(7)), rs.getLong(8)));
                }
                return rows;
            });
        } catch (SQLException e) {
            throw context.failure(what, "list", e);
        }
    }
}
