package dev.baton.jdbc;

/**
 * The SQL of fair hand-off, in one place, for one dialect and one waiters table ({@code
 * <table>_waiters} for the table strategy, {@code <table>_opt_waiters} for the optimistic one): one
 * row per waiting acquisition (lock name, owner id, place in line, last seen), all times on the
 * database's clock.
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

    /**
     * PostgreSQL's fair hand-off for one strategy ({@link HandOff}; docs/design/fair-handoff.md): the
     * release writes the head of the line as the new owner and NOTIFYs its client with the grant. All
     * are single auto-commit statements with named parameters.
     *
     * @param acquire grants if the lock is free and nobody live is ahead: (token, expiry ms) or no row
     * @param acquireOrJoin the same, or (busy) joins the line: ('G', token, expiry ms), ('Q', 0, 0), or
     *     no row when the row changed under the join (try again)
     * @param release frees the lock when nobody is counted in line; 1 row or 0 (someone joined, or lost)
     * @param handOffRelease hands the lock to the head of the line, or frees it: (held by the caller,
     *     handed, freed, notified); (1, 0, 0, 0) when a join raced it (run it again)
     * @param tick refreshes the waiter's entry, deletes the name's entries that stopped counting (their
     *     waiters died) and reads the lock: (owner, token, expiry ms, free, in line)
     * @param leave deletes the waiter's entry: 0 rows once a release handed it the lock
     */
    record HandOffSql(
            SqlTemplate.Named acquire,
            SqlTemplate.Named acquireOrJoin,
            SqlTemplate.Named release,
            SqlTemplate.Named handOffRelease,
            SqlTemplate.Named tick,
            SqlTemplate.Named leave) {}

    /**
     * The hand-off statements around a strategy's own parts, each a template with {@code {L}}, {@code
     * {R}} and {@code {next_token}} for its lock table, readers table and token, {@code {holder_col}},
     * {@code {holder_val}}, {@code {holder_excluded}} and {@code {holder_h}} for the holder description
     * where the tables have it: {@code grant}, the CTE {@code t} that grants (RETURNING token, expires_at) and CTEs
     * after it; {@code handOn}, the CTE {@code u} (RETURNING heir, token, expires_at, channel) and
     * whatever frees the lock; {@code freed}, the count of freeing writes; {@code token} and {@code
     * free}, expressions over the lock row {@code l} for the tick.
     */
    HandOffSql handOff(
            String locks,
            String readers,
            String nextToken,
            String grant,
            String release,
            String handOn,
            String freed,
            String token,
            String free) {
        String ms = "floor(extract(epoch FROM %s) * 1000)::bigint";
        String granted = "SELECT 'G', token, " + ms.formatted("expires_at") + " FROM t";
        String join =
                """
                ,
                j AS (UPDATE {L} l SET queued = l.queued + 1
                      WHERE NOT EXISTS (SELECT 1 FROM t) AND l.lock_name = :name AND l.owner_id <> :owner
                      RETURNING l.lock_name),
                w AS (INSERT INTO {W} (lock_name, owner_id, place, last_seen, channel, lease_ms{holder_col})
                      SELECT :name, :owner, {now}, {now}, CAST(:channel AS VARCHAR(63)), :lease{holder_val} FROM j
                      ON CONFLICT (lock_name, owner_id) DO UPDATE SET last_seen = {now}, channel = EXCLUDED.channel)
                """
                        + granted + " UNION ALL SELECT 'Q', 0, 0 FROM j";
        // The line as the snapshot shows it (read only when queued > 0), and its head, locked: a waiter
        // leaving at the same moment either deleted its entry first (no head: run again) or finds it
        // gone (it was handed the lock, and releases it). Entries without a lease are an older
        // version's or a shared waiter's: never handed an exclusive grant.
        String handOffRelease =
                """
                WITH s AS MATERIALIZED (SELECT l.queued FROM {L} l
                                        WHERE l.lock_name = :name AND l.owner_id = :owner AND l.lock_mode = 'X'),
                c AS MATERIALIZED (SELECT w.owner_id, w.place FROM {W} w
                                   WHERE (SELECT s.queued FROM s) > 0 AND w.lock_name = :name
                                     AND w.owner_id <> :owner AND w.lease_ms IS NOT NULL
                                     AND w.last_seen > {now} - INTERVAL '{window} milliseconds'),
                h AS MATERIALIZED (SELECT w.owner_id, w.channel, w.lease_ms, w.holder FROM {W} w
                                   WHERE w.lock_name = :name AND w.owner_id =
                                     (SELECT c.owner_id FROM c ORDER BY c.place, c.owner_id LIMIT 1)
                                   FOR UPDATE),
                """
                        + handOn
                        + """
                ,
                x AS (DELETE FROM {W} w USING u WHERE u.heir IS NOT NULL AND w.lock_name = :name AND w.owner_id = u.heir),
                n AS (SELECT pg_notify(u.channel, chr(2) || u.heir || ' ' || u.token || ' ' || {ms_u}) FROM u
                      WHERE u.heir IS NOT NULL AND u.channel IS NOT NULL)
                SELECT (SELECT count(*) FROM s), (SELECT count(*) FROM u WHERE u.heir IS NOT NULL), {freed},
                       (SELECT count(*) FROM n)""";
        String tick =
                """
                WITH r AS (UPDATE {W} SET last_seen = {now} WHERE lock_name = :name AND owner_id = :owner RETURNING 1),
                p AS (DELETE FROM {W} WHERE lock_name = :name
                        AND last_seen <= {now} - INTERVAL '{window} milliseconds')
                SELECT COALESCE(l.owner_id = :owner AND l.lock_mode = 'X' AND l.expires_at > {now}, false),
                       {token}, {ms_l}, COALESCE({free}, true), (SELECT count(*) FROM r)
                FROM (SELECT 1) one LEFT JOIN {L} l ON l.lock_name = :name""";
        SqlTemplate filled = new SqlTemplate(dialect)
                .with("{freed}", freed)
                .with("{token}", token)
                .with("{free}", free)
                .with("{ms_u}", ms.formatted("u.expires_at"))
                .with("{ms_l}", ms.formatted("l.expires_at"))
                .with("{W}", table)
                .with("{window}", Long.toString(JdbcLine.WINDOW_MILLIS))
                .with("{holder_col}", ", holder")
                .with("{holder_val}", ", CAST(:holder AS VARCHAR(120))")
                .with("{holder_excluded}", ", holder = EXCLUDED.holder")
                .with("{holder_h}", ", holder = h.holder")
                .with("{none_ahead}", noneAhead())
                .with("{L}", locks)
                .with("{R}", readers)
                .with("{next_token}", nextToken);
        return new HandOffSql(
                named(filled, grant + "\n" + granted),
                named(filled, grant + join),
                named(filled, release),
                named(filled, handOffRelease),
                named(filled, tick),
                named(filled, "DELETE FROM {W} WHERE lock_name = :name AND owner_id = :owner"));
    }

    /**
     * No live waiter other than the requester ({@code EXCLUDED.owner_id}) is ahead of it in the line
     * of the lock row {@code l}: for the takeover of an expired or free row while someone is queued.
     */
    String noneAhead() {
        return ("NOT EXISTS (SELECT 1 FROM {W} a WHERE a.lock_name = l.lock_name AND a.owner_id <> EXCLUDED.owner_id"
                        + " AND a.last_seen > {now} - INTERVAL '{window} milliseconds'"
                        + " AND NOT EXISTS (SELECT 1 FROM {W} m WHERE m.lock_name = a.lock_name"
                        + " AND m.owner_id = EXCLUDED.owner_id"
                        + " AND (m.place < a.place OR (m.place = a.place AND m.owner_id < a.owner_id))))")
                .replace("{W}", table)
                .replace("{window}", Long.toString(JdbcLine.WINDOW_MILLIS));
    }

    private static SqlTemplate.Named named(SqlTemplate template, String text) {
        return SqlTemplate.Named.of(template.sql(text));
    }
}
