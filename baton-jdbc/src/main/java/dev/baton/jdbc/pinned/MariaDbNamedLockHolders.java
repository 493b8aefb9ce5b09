package dev.baton.jdbc.pinned;

import dev.baton.LockInfo;
import dev.baton.LockUnavailableException;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSession;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Operators' view of MariaDB's named locks ({@link MariaDbNamedLockStatements}).
 *
 * <ul>
 *   <li>List: one query over {@code <table>_fencing}, whose upsert at each grant records the holder
 *       (owner, description, connection id, server-side name, lease) beside the token; a row counts
 *       while {@code IS_USED_LOCK(server_name)} is still its connection. The query reads every row of
 *       the table (one per name ever locked); names are filtered by prefix here. Waiters cannot be
 *       counted: the server does not show who waits in {@code GET_LOCK}.
 *   <li>Forced release: a named lock belongs to its connection, and {@code RELEASE_LOCK} frees only
 *       the caller's own; so it ends the holder's connection with {@code KILL CONNECTION}, as a DBA
 *       would, and waits (within the operation timeout) until the server has let the lock go. The
 *       next grant's token is the fencing row's counter plus one, higher than the broken holder's,
 *       and the broken holder's next renewal fails on its killed connection, so its lease is
 *       reported lost. Killing another user's connection needs the {@code CONNECTION ADMIN} (or
 *       {@code SUPER}) privilege; one's own user's needs none.
 * </ul>
 */
final class MariaDbNamedLockHolders implements PinnedStatements.Holders {
    /** MariaDB: you are not owner of thread (KILL without the privilege). */
    private static final int KILL_DENIED = 1095;
    /** MariaDB: unknown thread id (it ended meanwhile). */
    private static final int NO_SUCH_THREAD = 1094;

    private final JdbcProtocol.Context context;
    /**
     * The names whose recorded holder's connection holds the lock now: (name, mode, owner, token,
     * expiry in epoch millis, holder, connection id). The expiry is when the idle session
     * would end: the lease less the time the connection has been idle.
     */
    private final String list;
    /** Whether the connection still holds the name's lock; ? = name, connection id. */
    private final String held;

    MariaDbNamedLockHolders(JdbcProtocol.Context context, String fencing) {
        this.context = context;
        this.held = "SELECT COUNT(*) FROM " + fencing + " WHERE lock_name = ? AND IS_USED_LOCK(server_name) = ?";
        this.list = "SELECT f.lock_name, 'X', f.owner_id, f.fencing_token,"
                + " FLOOR(UNIX_TIMESTAMP(NOW(6)) * 1000 + f.lease_ms - COALESCE(p.TIME_MS, 0)),"
                + " f.holder, f.connection_id FROM " + fencing + " f"
                + " LEFT JOIN information_schema.PROCESSLIST p ON p.ID = f.connection_id"
                + " WHERE f.connection_id IS NOT NULL AND IS_USED_LOCK(f.server_name) = f.connection_id"
                + " ORDER BY f.lock_name";
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return SessionHolder.under(SessionHolder.read(context, prefix, list), prefix);
    }

    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        List<SessionHolder> hit = SessionHolder.of(SessionHolder.read(context, name, list), name, ownerId);
        List<SessionHolder> ended = new ArrayList<>();
        try (JdbcSession db = context.connections().open(false)) {
            for (SessionHolder row : hit) {
                endConnection(db, context, name, row.session());
                awaitGone(db, name, row.session());
                ended.add(row);
            }
        } catch (SQLException e) {
            throw context.failure(name, "force release", e);
        }
        return SessionHolder.group(ended);
    }

    /**
     * Ends a holder's connection with {@code KILL CONNECTION} and waits (within the operation timeout)
     * until it has left the process list, that is until the server has rolled back its transaction
     * and released its locks. (A connection of another user stays out of sight without the PROCESS
     * privilege: then the caller's own check decides.)
     *
     * @throws LockUnavailableException naming the privilege when the server refuses
     */
    static void endConnection(JdbcSession db, JdbcProtocol.Context context, String name, long connection)
            throws SQLException {
        try {
            db.update("KILL CONNECTION " + connection);
        } catch (SQLException e) {
            if (e.getErrorCode() == KILL_DENIED) {
                throw SessionHolder.refused(
                        name,
                        context.backendName(),
                        "KILL CONNECTION " + connection,
                        "the user needs the CONNECTION ADMIN privilege (or SUPER) to end another user's"
                                + " connection (GRANT CONNECTION ADMIN ON *.* TO <user>)",
                        e);
            }
            if (e.getErrorCode() != NO_SUCH_THREAD) {
                throw e;
            }
        }
        long deadline =
                System.nanoTime() + context.connections().operationTimeout.toNanos();
        while (db.first(
                                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?",
                                rs -> rs.getLong(1),
                                connection)
                        .orElse(0L)
                > 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new LockUnavailableException("Baton lock '" + name + "' on " + context.backendName()
                        + ": the holder's connection " + connection + " did not end within the operation timeout"
                        + " after KILL CONNECTION; call the forced release again");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /** The killed connection lets its locks go as it ends, shortly after KILL returns. */
    private void awaitGone(JdbcSession db, String name, long connection) throws SQLException {
        long deadline =
                System.nanoTime() + context.connections().operationTimeout.toNanos();
        while (db.first(held, rs -> rs.getLong(1), name, connection).orElse(0L) > 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new LockUnavailableException("Baton lock '" + name + "' on " + context.backendName()
                        + ": the holder's connection " + connection + " still holds the lock after KILL CONNECTION;"
                        + " call the forced release again");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }
}
