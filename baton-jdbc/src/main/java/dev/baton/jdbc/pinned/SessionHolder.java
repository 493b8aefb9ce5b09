package dev.baton.jdbc.pinned;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockUnavailableException;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSession;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * One holder of a pinned grant as operators see it ({@link PgAdvisoryHolders}, {@link
 * MariaDbNamedLockHolders}, {@link PessimisticHolders}): the grant and the database session that
 * holds it, which is what a forced release ends, since such a grant lives exactly as long as its
 * session.
 *
 * @param session the holder's session: PostgreSQL's backend pid, MariaDB's connection id
 */
record SessionHolder(String name, LockKind kind, Holder holder, OptionalInt waiters, long session) {

    /** The holders grouped into one entry per name and kind, in the order given (sorted by name). */
    static List<LockInfo> group(List<SessionHolder> rows) {
        List<LockInfo> locks = new ArrayList<>();
        List<Holder> holders = new ArrayList<>();
        SessionHolder first = null;
        for (SessionHolder row : rows) {
            if (first != null && !(first.name.equals(row.name) && first.kind == row.kind)) {
                locks.add(LockInfo.of(first.name, first.kind, holders).withWaiters(first.waiters));
                holders = new ArrayList<>();
            }
            if (holders.isEmpty()) {
                first = row;
            }
            holders.add(row.holder);
        }
        if (first != null) {
            locks.add(LockInfo.of(first.name, first.kind, holders).withWaiters(first.waiters));
        }
        return locks;
    }

    /** The holders of {@code name} (all, or the one with {@code ownerId}), out of a listing. */
    static List<SessionHolder> of(List<SessionHolder> rows, String name, String ownerId) {
        return rows.stream()
                .filter(row -> row.name.equals(name)
                        && (ownerId == null || row.holder.ownerId().equals(ownerId)))
                .toList();
    }

    /** The holders of names that start with {@code prefix}, grouped. */
    static List<LockInfo> under(List<SessionHolder> rows, String prefix) {
        return group(rows.stream().filter(row -> row.name.startsWith(prefix)).toList());
    }

    /**
     * Reads holders from rows of (name, mode S or X, owner, token, expiry in epoch millis, holder,
     * session [, waiters]).
     */
    static List<SessionHolder> read(JdbcProtocol.Context context, String what, String sql, Object... params) {
        try (JdbcSession db = context.connections().open(false)) {
            return db.all(
                    sql,
                    rs -> {
                        boolean waiters = rs.getMetaData().getColumnCount() > 7;
                        List<SessionHolder> rows = new ArrayList<>();
                        while (rs.next()) {
                            Holder holder = Holder.of(
                                    rs.getString(3),
                                    Objects.toString(rs.getString(6), ""),
                                    rs.getLong(4),
                                    Instant.ofEpochMilli(rs.getLong(5)));
                            LockKind kind = "S".equals(rs.getString(2)) ? LockKind.READ : LockKind.MUTEX;
                            OptionalInt queued = waiters ? OptionalInt.of(rs.getInt(8)) : OptionalInt.empty();
                            rows.add(new SessionHolder(rs.getString(1), kind, holder, queued, rs.getLong(7)));
                        }
                        return rows;
                    },
                    params);
        } catch (SQLException e) {
            throw context.failure(what, "list", e);
        }
    }

    /**
     * The failure of a forced release that the database refused for lack of a privilege: names the
     * lock, the backend, what ending the session needs, and how to grant it.
     */
    static LockUnavailableException refused(
            String name, String backend, String statement, String privilege, SQLException e) {
        return new LockUnavailableException(
                "Baton lock '" + name + "' on " + backend + ": a forced release ends"
                        + " the holder's database session (" + statement + "), which the database refused: " + privilege
                        + " (" + e.getMessage() + ")",
                e);
    }
}
