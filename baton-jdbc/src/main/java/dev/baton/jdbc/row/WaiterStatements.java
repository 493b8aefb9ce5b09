package dev.baton.jdbc.row;

import dev.baton.jdbc.internal.Dialect;

/**
 * The line's statements every dialect shares (the guard of granting statements, join, leave,
 * refresh, purge), for one waiters table ({@code <table>_waiters} for the table strategy, {@code
 * <table>_opt_waiters} for the optimistic one): one row per waiting acquisition (lock name, owner
 * id, place in line, last seen), all times on the database's clock. Each dialect's hand-off of
 * exclusive grants is {@link PgHandOffStatements} or {@link RowHandOffStatements}.
 *
 * <p>Why a table: a waiter must keep its place across its polls and across clients, and the grant
 * must be decided in the same statement as the write that takes the lock, so that the uncontended
 * path stays one statement. Every statement that can give a free lock to someone carries {@link
 * #guard()}: it grants only when no live waiter other than the requester is ahead of it. A waiter is
 * ahead when it joined earlier (ties broken by owner id, so two waiters never both defer to each
 * other); a requester that has not joined is behind everyone, which is what stops the releasing
 * client from taking the lock straight back.
 *
 * <p>Why "live": an entry whose waiter died or hung stops being refreshed ({@link JdbcLine}
 * refreshes them every {@link JdbcLine#REFRESH_MILLIS}) and stops counting after {@link
 * JdbcLine#WINDOW_MILLIS}, so a dead waiter holds a released lock back for at most that long, far
 * less than a lease.
 */
final class WaiterStatements {
    /** The waiters table. */
    final String table;

    /**
     * A condition to AND into the WHERE of a granting statement; ? = name, owner, minus the liveness
     * window in milliseconds, owner (see {@link #guardParams}).
     */
    final String guard;

    /** Joins the line, or refreshes the entry if it is there; ? = name, owner [, channel on PostgreSQL]. */
    final String join;

    /** Leaves the line; ? = name, owner. */
    final String leave;

    /**
     * PostgreSQL: records the client's LISTEN channel on an entry that joined before the listener was
     * up; ? = channel, name, owner. Null for the other dialects.
     */
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
        // Entries of waiters gone for good (a crashed client) would otherwise stay in the table.
        purgeIn = "DELETE FROM " + table + " WHERE last_seen <= " + dialect.nowPlusMillis() + " AND lock_name IN ";
    }

    /**
     * PostgreSQL: the channel a release NOTIFYs, as an expression over the released row {@code
     * alias} (which has {@code lock_name} and {@code waiter}): the channel of the head of the line,
     * the one waiter the lock now waits for, so the hand-off does not wait for a poll; else the
     * row's registered waiter. A literal window: the release statements take no extra parameter.
     */
    String notifyChannel(String alias) {
        return "COALESCE((SELECT w.channel FROM " + table + " w WHERE w.lock_name = " + alias + ".lock_name"
                + " AND w.last_seen > " + dialect.now() + " - INTERVAL '" + JdbcLine.WINDOW_MILLIS
                + " milliseconds' ORDER BY w.place, w.owner_id LIMIT 1), " + alias + ".waiter)";
    }

    /** Whether {@link #join} takes the client's LISTEN channel as a third parameter. */
    boolean joinTakesChannel() {
        return dialect == Dialect.POSTGRESQL;
    }

    /** The condition of {@link #guard}, for one statement's WHERE. */
    String guard() {
        return guard;
    }

    /** The parameters of {@link #guard}, in order. */
    static Object[] guardParams(String name, String owner) {
        return new Object[] {name, owner, -JdbcLine.WINDOW_MILLIS, owner};
    }

    /**
     * A bind parameter in the select list of an {@code INSERT ... SELECT}: H2 must be told its type,
     * the others take it from the target column.
     */
    String param(String sqlType) {
        return dialect == Dialect.H2 ? "CAST(? AS " + sqlType + ")" : "?";
    }

    /** Parameters followed by the guard's. */
    static Object[] with(Object[] params, String name, String owner) {
        Object[] guardParams = guardParams(name, owner);
        Object[] all = java.util.Arrays.copyOf(params, params.length + guardParams.length);
        System.arraycopy(guardParams, 0, all, params.length, guardParams.length);
        return all;
    }
}
