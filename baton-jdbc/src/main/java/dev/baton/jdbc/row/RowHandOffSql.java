package dev.baton.jdbc.row;

import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.SqlTemplate;
import dev.baton.jdbc.internal.TableNames;

/**
 * The SQL of fair hand-off on H2 and MariaDB ({@link RowHandOffStatements}), for the table strategy
 * (H2) or the optimistic one (H2, MariaDB): short statements, run alone or in short READ COMMITTED
 * transactions, since these databases have no data-modifying CTEs and no NOTIFY. The comment above
 * each statement lists its parameters in order; docs/design/fair-handoff.md has the design.
 *
 * <ul>
 *   <li>Every join and every hand-off release locks the lock row first ({@link #join}, {@link
 *       #lockRow}), then the waiters' rows: joins and releases are serialized per name, so a release
 *       never misses a join that committed before it, and nothing deadlocks.
 *   <li>The waiters' rows read by the release are locked ({@link #head}): a waiter leaving at the same
 *       moment either deleted its entry first or finds it gone after the commit (it was handed the
 *       lock, and releases it).
 * </ul>
 */
final class RowHandOffSql {
    /** The lock table and the waiters table. */
    final String locks;

    final String waiters;
    /** Whether this is the table strategy's (row deleted on release) or the optimistic one's (row kept). */
    final boolean table;
    /** Whether {@link #handOn} returns the heir's (token, expires_at) (H2); else token = version + 1. */
    final boolean handOnReturns;

    /** ? = name, owner: counts a busy lock's line up by one (0 rows: free again, or the caller's). */
    final String join;
    /** ? = name, owner, lease [, holder]: writes the entry, or refreshes it and keeps its place. */
    final String enter;
    /** ? = name, owner: the plain release; 0 rows when someone is counted in line, or not held. */
    final String release;
    /** ? = name, owner: locks the caller's lock row; (queued, version or 0), no row: not held. */
    final String lockRow;
    /** ? = name, owner, minus the window: the live head of the line, locked; (owner, lease ms [, holder]). */
    final String head;
    /** ? = heir, lease [, holder], name, owner: the lock row handed to the heir. */
    final String handOn;
    /** ? = name, owner: frees the lock (no live head). */
    final String free;
    /** ? = name, owner: deletes an entry (the heir's, or a waiter leaving). */
    final String leave;
    /** ? = owner, name: (owner, mode, live 1/0, token, expires_at, entries of the owner); no row: free. */
    final String read;
    /** ? = name, owner. */
    final String refresh;
    /** ? = name, minus the window: deletes entries whose waiters stopped refreshing. */
    final String purge;

    /** Table: ? = name, owner, lease [, holder]: inserts the lock row with token 0 (drawn next). */
    final String insert;
    /** Table: ? = name: draws the token under the new row's lock; returns (token, expires_at). */
    final String drawToken;
    /**
     * ? = owner, lease [, holder], name, then the guard's ({@link WaiterStatements#guardParams}): takes
     * an expired (table) or free (optimistic: also the version read) lock over when nobody is counted
     * in line, or nobody live is ahead; table: returns (token, expires_at).
     */
    final String takeOver;
    /** Optimistic: ? = owner, lease [, holder], name, version read: the CAS while nobody is queued. */
    final String casFree;
    /** Table: ? = name: one row while the lock is held. */
    final String busy;
    /** Table: ? = name: the readers of a taken-over shared grant. */
    final String deleteReaders;
    /** Optimistic: ? = name: (version, mode, expired 1/0, queued). */
    final String readRow;

    private RowHandOffSql(Dialect dialect, TableNames names, boolean table) {
        this.table = table;
        this.locks = table ? names.locks() : names.locks() + "_opt";
        this.waiters = locks + "_waiters";
        WaiterStatements guard = new WaiterStatements(dialect, waiters);
        boolean h2 = dialect == Dialect.H2;
        this.handOnReturns = h2;
        SqlTemplate sql = new SqlTemplate(dialect)
                .with("{guard}", guard.guard())
                .with("{L}", locks)
                .with("{R}", table ? names.readers() : locks + "_readers")
                .with("{W}", waiters)
                .with("{next_token}", dialect.nextToken(names.sequence()))
                .with("{holder_col}", ", holder")
                .with("{holder_val}", ", ?")
                .with("{set_holder}", ", holder = ?");
        String held = table ? "expires_at > {now}" : "lock_mode <> '-' AND expires_at > {now}";
        join = sql.sql("UPDATE {L} SET queued = queued + 1 WHERE lock_name = ? AND owner_id <> ? AND " + held);
        enter = sql.sql(
                h2
                        ? "MERGE INTO {W} t USING (VALUES (CAST(? AS VARCHAR(512)), CAST(? AS VARCHAR(64)),"
                                + " CAST(? AS BIGINT)" + ", CAST(? AS VARCHAR(120))" + "))"
                                + " s(lock_name, owner_id, lease_ms" + ", holder" + ")"
                                + " ON t.lock_name = s.lock_name AND t.owner_id = s.owner_id"
                                + " WHEN MATCHED THEN UPDATE SET last_seen = {now}"
                                + " WHEN NOT MATCHED THEN INSERT (lock_name, owner_id, place, last_seen, lease_ms{holder_col})"
                                + " VALUES (s.lock_name, s.owner_id, {now}, {now}, s.lease_ms"
                                + ", s.holder" + ")"
                        : "INSERT INTO {W} (lock_name, owner_id, place, last_seen, lease_ms{holder_col})"
                                + " VALUES (?, ?, {now}, {now}, ?{holder_val}) ON DUPLICATE KEY UPDATE last_seen = {now}");
        String free = table
                ? "DELETE FROM {L} WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X'"
                : "UPDATE {L} SET version = version + 1, lock_mode = '-', owner_id = '', expires_at = {now}, queued = 0"
                        + " WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X'";
        this.free = sql.sql(free);
        release = sql.sql(free + " AND queued = 0");
        lockRow = sql.sql("SELECT queued, " + (table ? "0" : "version")
                + " FROM {L} WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X' FOR UPDATE");
        head = sql.sql("SELECT owner_id, lease_ms" + ", holder" + " FROM {W}"
                + " WHERE lock_name = ? AND owner_id <> ? AND lease_ms IS NOT NULL AND last_seen > {now+lease}"
                + " ORDER BY place, owner_id LIMIT 1 FOR UPDATE");
        String handOnUpdate = "UPDATE {L} SET " + (table ? "fencing_token = {next_token}" : "version = version + 1")
                + ", owner_id = ?, expires_at = {now+lease}, queued = GREATEST(queued - 1, 0){set_holder}"
                + " WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X'";
        handOn = h2
                ? dialect.returning(sql.sql(handOnUpdate), (table ? "fencing_token" : "version") + ", expires_at")
                : sql.sql(handOnUpdate);
        leave = sql.sql("DELETE FROM {W} WHERE lock_name = ? AND owner_id = ?");
        read = sql.sql("SELECT l.owner_id, l.lock_mode, CASE WHEN l.expires_at > {now} THEN 1 ELSE 0 END, "
                + (table ? "l.fencing_token" : "l.version")
                + ", l.expires_at, (SELECT COUNT(*) FROM {W} w WHERE w.lock_name = l.lock_name AND w.owner_id = ?)"
                + " FROM {L} l WHERE l.lock_name = ?");
        refresh = sql.sql("UPDATE {W} SET last_seen = {now} WHERE lock_name = ? AND owner_id = ?");
        purge = sql.sql("DELETE FROM {W} WHERE lock_name = ? AND last_seen <= {now+lease}");
        if (table) {
            insert = sql.sql("INSERT INTO {L} (lock_name, lock_mode, owner_id, expires_at, fencing_token, queued"
                    + "{holder_col}) VALUES (?, 'X', ?, {now+lease}, 0, 0{holder_val})");
            drawToken = dialect.returning(
                    sql.sql("UPDATE {L} SET fencing_token = {next_token} WHERE lock_name = ?"),
                    "fencing_token, expires_at");
            takeOver = dialect.returning(
                    sql.sql("UPDATE {L} SET lock_mode = 'X', owner_id = ?, expires_at = {now+lease},"
                            + " fencing_token = {next_token}{set_holder}"
                            + " WHERE lock_name = ? AND expires_at <= {now} AND (queued = 0 OR {guard})"),
                    "fencing_token, expires_at");
            deleteReaders = sql.sql("DELETE FROM {R} WHERE lock_name = ?");
            this.busy = sql.sql("SELECT 1 FROM {L} WHERE lock_name = ? AND expires_at > {now}");
            readRow = null;
            casFree = null;
        } else {
            insert = sql.sql("INSERT INTO {L} (lock_name, version, lock_mode, owner_id, expires_at, queued"
                    + "{holder_col}) VALUES (?, 1, 'X', ?, {now+lease}, 0{holder_val})");
            drawToken = null;
            takeOver = sql.sql("UPDATE {L} SET version = version + 1, lock_mode = 'X', owner_id = ?,"
                    + " expires_at = {now+lease}{set_holder} WHERE lock_name = ? AND version = ?"
                    + " AND (queued = 0 OR {guard})");
            casFree = sql.sql("UPDATE {L} SET version = version + 1, lock_mode = 'X', owner_id = ?,"
                    + " expires_at = {now+lease}{set_holder} WHERE lock_name = ? AND version = ? AND queued = 0");
            deleteReaders = sql.sql("DELETE FROM {R} WHERE lock_name = ?");
            this.busy = null;
            readRow = sql.sql("SELECT version, lock_mode, CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END, queued"
                    + " FROM {L} WHERE lock_name = ?");
        }
    }

    static RowHandOffSql table(Dialect dialect, TableNames names) {
        return new RowHandOffSql(dialect, names, true);
    }

    static RowHandOffSql optimistic(Dialect dialect, TableNames names) {
        return new RowHandOffSql(dialect, names, false);
    }
}
