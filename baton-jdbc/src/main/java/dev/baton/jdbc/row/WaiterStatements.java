package dev.baton.jdbc.row;

import dev.baton.jdbc.internal.Dialect;

/**
 * The line's statements. Every statement that can give a free lock away carries {@link #guard}: no live
 * waiter is ahead of the requester, so the releasing client cannot take the lock straight back. An entry
 * stops counting {@link JdbcLine#WINDOW_MILLIS} after its last refresh, which bounds a dead waiter's hold.
 */
final class WaiterStatements {
    final String table;
    final String leave;
    /** A condition for a granting statement's WHERE; ? = {@link #guardParams}. */
    final String guard;
    /** Joins the line, or refreshes the entry; ? = name, owner [, channel on PostgreSQL]. */
    final String join;
    /** PostgreSQL: the channel of an entry that joined before the listener was up; ? = channel, name, owner. */
    final String registerChannel;
    /** Refreshes the listed entries, up to the IN list; then (name, owner) pairs. */
    final String refreshIn;
    /** Deletes entries that stopped counting, for the listed names; up to the IN list, then names. */
    final String purgeIn;
    /** What precedes a select-list-only query's WHERE: {@code FROM DUAL}, or nothing (PostgreSQL). */
    final String fromDual;

    private final Dialect dialect;

    WaiterStatements(Dialect dialect, String table) {
        this.dialect = dialect;
        this.table = table;
        this.fromDual = dialect == Dialect.POSTGRESQL ? "" : " FROM DUAL";
        String now = dialect.now();
        guard = ("NOT EXISTS (SELECT 1 FROM {w} w WHERE w.lock_name = ? AND w.owner_id <> ?"
                        + " AND w.last_seen > {now+lease}"
                        + " AND NOT EXISTS (SELECT 1 FROM {w} m WHERE m.lock_name = w.lock_name AND m.owner_id = ?"
                        + " AND (m.place < w.place OR (m.place = w.place AND m.owner_id < w.owner_id))))")
                .replace("{now+lease}", dialect.nowPlusMillis())
                .replace("{w}", table);
        join = switch (dialect) {
                // PostgreSQL also records the client's LISTEN channel (null while its listener is down).
            case POSTGRESQL -> "INSERT INTO " + table + " (lock_name, owner_id, place, last_seen, channel)"
                    + " VALUES (?, ?, " + now + ", " + now + ", ?) ON CONFLICT (lock_name, owner_id)"
                    + " DO UPDATE SET last_seen = " + now + ", channel = EXCLUDED.channel";
            case MARIADB -> "INSERT INTO " + table + " (lock_name, owner_id, place, last_seen) VALUES (?, ?, " + now
                    + ", " + now + ") ON DUPLICATE KEY UPDATE last_seen = " + now;
            case H2 -> "MERGE INTO " + table + " t USING (VALUES (CAST(? AS VARCHAR(512)), CAST(? AS VARCHAR(64))))"
                    + " s(lock_name, owner_id) ON t.lock_name = s.lock_name AND t.owner_id = s.owner_id"
                    + " WHEN MATCHED THEN UPDATE SET last_seen = " + now
                    + " WHEN NOT MATCHED THEN INSERT (lock_name, owner_id, place, last_seen)"
                    + " VALUES (s.lock_name, s.owner_id, " + now + ", " + now + ")";
        };
        leave = "DELETE FROM " + table + " WHERE lock_name = ? AND owner_id = ?";
        registerChannel = dialect == Dialect.POSTGRESQL
                ? "UPDATE " + table + " SET channel = ? WHERE lock_name = ? AND owner_id = ? AND channel IS NULL"
                : null;
        refreshIn = "UPDATE " + table + " SET last_seen = " + now + " WHERE (lock_name, owner_id) IN ";
        purgeIn = "DELETE FROM " + table + " WHERE last_seen <= " + dialect.nowPlusMillis() + " AND lock_name IN ";
    }

    /** PostgreSQL: the channel a release of row {@code alias} NOTIFYs: the line's head's, else its waiter's. */
    String notifyChannel(String alias) {
        return "COALESCE((SELECT w.channel FROM " + table + " w WHERE w.lock_name = " + alias + ".lock_name"
                + " AND w.last_seen > " + dialect.now() + " - INTERVAL '" + JdbcLine.WINDOW_MILLIS
                + " milliseconds' ORDER BY w.place, w.owner_id LIMIT 1), " + alias + ".waiter)";
    }

    boolean joinTakesChannel() {
        return dialect == Dialect.POSTGRESQL;
    }

    static Object[] guardParams(String name, String owner) {
        return new Object[] {name, owner, -JdbcLine.WINDOW_MILLIS, owner};
    }

    /** A bind parameter in an {@code INSERT ... SELECT}'s select list: H2 must be told its type. */
    String param(String sqlType) {
        return dialect == Dialect.H2 ? "CAST(? AS " + sqlType + ")" : "?";
    }
}
