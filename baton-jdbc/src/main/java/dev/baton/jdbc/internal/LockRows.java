package dev.baton.jdbc.internal;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/** Reading the grants of the table strategy's rows, which the permits' listing shares. */
public final class LockRows {
    private LockRows() {}

    /**
     * The held locks of a grants query's rows: (name, mode, owner, token, expiry, holder, reader
     * owner, reader token, reader expiry, reader holder, live waiters), ordered by name and then the
     * readers' tokens; a shared row without a live reader is left out. Waiters count only when fair.
     */
    static List<LockInfo> read(Dialect dialect, ResultSet rs, boolean countsWaiters) throws SQLException {
        List<LockInfo> locks = new ArrayList<>();
        String name = null;
        List<Holder> readers = new ArrayList<>();
        OptionalInt waiters = OptionalInt.empty();
        while (rs.next()) {
            String rowName = rs.getString(1);
            if (!rowName.equals(name)) {
                addShared(locks, name, readers, waiters);
                name = rowName;
                readers = new ArrayList<>();
            }
            waiters = countsWaiters ? OptionalInt.of(rs.getInt(11)) : OptionalInt.empty();
            if ("X".equals(rs.getString(2).trim())) {
                Holder holder =
                        Holder.of(rs.getString(3), described(rs.getString(6)), rs.getLong(4), dialect.instant(rs, 5));
                locks.add(LockInfo.of(rowName, LockKind.MUTEX, List.of(holder)).withWaiters(waiters));
                continue;
            }
            String reader = rs.getString(7);
            if (reader != null) {
                Instant expiresAt = dialect.instant(rs, 9);
                readers.add(Holder.of(reader, described(rs.getString(10)), rs.getLong(8), expiresAt));
            }
        }
        addShared(locks, name, readers, waiters);
        return locks;
    }

    private static void addShared(List<LockInfo> locks, String name, List<Holder> readers, OptionalInt waiters) {
        if (name != null && !readers.isEmpty()) {
            locks.add(LockInfo.of(name, LockKind.READ, readers).withWaiters(waiters));
        }
    }

    /** Runs a grants query ({@link #read}); {@code what} names the lock or prefix in a failure. */
    public static List<LockInfo> select(JdbcProtocol.Context context, String sql, String what, Object... params) {
        try (JdbcSession db = context.connections().open(false)) {
            return db.all(sql, rs -> read(context.dialect(), rs, context.fair()), params);
        } catch (SQLException e) {
            throw context.failure(what, "listing", e);
        }
    }

    /** A holder column's value, "" when none was written. */
    public static String described(String holder) {
        return holder == null ? "" : holder;
    }

    public static int countRows(ResultSet rs) throws SQLException {
        int rows = 0;
        while (rs.next()) {
            rows++;
        }
        return rows;
    }
}
