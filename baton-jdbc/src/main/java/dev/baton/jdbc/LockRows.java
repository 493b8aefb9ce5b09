package dev.baton.jdbc;

import dev.baton.spi.LockInfo;
import dev.baton.spi.LockMode;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reading the results the row-based protocols (table, optimistic) share. */
final class LockRows {
    private LockRows() {}

    /**
     * The holder of a lock from an inspect query's rows: (mode, owner, token, expiry, reader owner,
     * reader token), the name row joined with its live readers, ordered by the readers' tokens.
     */
    static Optional<LockInfo> toLockInfo(Dialect dialect, String name, ResultSet rs) throws SQLException {
        List<String> readers = new ArrayList<>();
        long token = Long.MIN_VALUE;
        Instant expiresAt = null;
        while (rs.next()) {
            expiresAt = dialect.instant(rs, 4);
            if ("X".equals(rs.getString(1).trim())) {
                return Optional.of(
                        new LockInfo(name, LockMode.EXCLUSIVE, List.of(rs.getString(2)), rs.getLong(3), expiresAt));
            }
            String reader = rs.getString(5);
            if (reader != null) {
                readers.add(reader);
                token = Math.max(token, rs.getLong(6));
            }
        }
        return readers.isEmpty()
                ? Optional.empty()
                : Optional.of(new LockInfo(name, LockMode.SHARED, readers, token, expiresAt));
    }

    /** Counts the rows of a result (the rows a notifying DELETE or UPDATE ... RETURNING wrote). */
    static int countRows(ResultSet rs) throws SQLException {
        int rows = 0;
        while (rs.next()) {
            rows++;
        }
        return rows;
    }
}
