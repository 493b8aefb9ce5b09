package dev.baton.jdbc.row;

import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcSchema;
import dev.baton.jdbc.internal.SqlTemplate;
import dev.baton.jdbc.internal.TableNames;
import java.util.Map;

/** Every statement of the {@link RowProtocol}, built once per dialect; {@code ? =} lists the parameters. */
final class RowStatements {
    /** The strategy's objects, each with a statement that fails when it is missing. */
    final Map<String, String> probes;
    /** ? = name: (version, mode, expired 1/0, queued, a new token drawn from the sequence). */
    final String read;

    final String drawToken;

    final String insertRow;
    final String casExclusive;
    final String casExclusiveInLine;
    final String casShared;
    final String casJoinShared;
    final String deleteReaders;
    final String insertReader;
    final String renewExclusive;
    /** The batch renewal up to its IN list; ? = lease, then each grant's (name, version, owner). */
    final String renewExclusiveIn;

    final String extendShared;
    final String renewReader;
    final String releaseExclusive;
    final String lockSharedRow;
    final String deleteReader;
    final String freeShared;
    final String setSharedExpiry;
    /** ? = minus an hour (millis): deletes up to a thousand rows of names free for that long. */
    final String purge;
    /** ? = minus the waiters' window (millis), name: the name's grant, as {@code LockRows#read} reads it. */
    final String inspect;
    /** ? = minus the waiters' window (millis): every live grant, as {@code LockRows#read} reads it. */
    final String list;
    /** Whether the releases notify waiters (PostgreSQL) and so return rows. */
    final boolean notifies;
    /** PostgreSQL: registers a client's channel as the row's waiter if none is; null elsewhere. */
    final String registerWaiter;
    /** The fair line's statements; its guard is in the granting statements when fair. */
    final WaiterStatements waiters;
    /** The names among a list that are held; up to the IN list ({@link JdbcLine}). */
    final String heldIn;

    private final boolean fair;
    private final SqlTemplate template;

    RowStatements(Dialect dialect, TableNames names, boolean fair) {
        this.fair = fair;
        this.notifies = dialect == Dialect.POSTGRESQL;
        this.waiters = new WaiterStatements(dialect, names.waiters());
        // A new holder clears the waiter request: clients still waiting register again.
        this.template = new SqlTemplate(dialect)
                .with("{and_guard}", fair ? "AND {guard}" : "")
                .with("{guard}", waiters.guard)
                .with("{reset_waiter}", notifies ? ", waiter = NULL" : "")
                .with("{locks}", names.locks())
                .with("{readers}", names.readers())
                .with("{next_token}", dialect.nextToken(names.sequence()));
        this.heldIn =
                sql("SELECT lock_name FROM {locks} WHERE lock_mode <> '-' AND expires_at > {now} AND lock_name IN ");
        read = sql("SELECT version, lock_mode, CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END, queued,"
                + " {next_token} FROM {locks} WHERE lock_name = ?");
        drawToken = "SELECT " + dialect.nextToken(names.sequence());
        // ? = name, token, mode, owner, lease, holder [, the guard's when fair]
        insertRow = dialect.insertIfAbsent(
                fair
                        ? sql("INSERT INTO {locks} (lock_name, version, lock_mode, owner_id, expires_at, holder)"
                                + " SELECT " + waiters.param("VARCHAR(512)") + ", " + waiters.param("BIGINT") + ", "
                                + waiters.param("CHAR(1)") + ", " + waiters.param("VARCHAR(64)")
                                + ", {now+lease}, " + waiters.param("VARCHAR(120)") + waiters.fromDual
                                + " WHERE {guard}")
                        : sql("INSERT INTO {locks} (lock_name, version, lock_mode, owner_id, expires_at, holder)"
                                + " VALUES (?, ?, ?, ?, {now+lease}, ?)"),
                "lock_name");
        // ? = token, owner, lease, holder, name, version read: nobody counted in line; InLine: then the guard's
        String cas = "UPDATE {locks} SET version = ?, lock_mode = 'X', owner_id = ?, expires_at = {now+lease},"
                + " holder = ?{reset_waiter} WHERE lock_name = ? AND version = ?";
        casExclusive = sql(cas + " AND queued = 0");
        casExclusiveInLine = sql(cas + " AND (queued = 0 OR {guard})");
        // ? = token, lease, name, version read [, the guard's]
        casShared = sql("UPDATE {locks} SET version = ?, lock_mode = 'S', owner_id = '',"
                + " expires_at = {now+lease}{reset_waiter} WHERE lock_name = ? AND version = ? {and_guard}");
        // ? = token, lease, name, version read
        casJoinShared = sql("UPDATE {locks} SET version = ?,"
                + " expires_at = GREATEST(expires_at, {now+lease}) WHERE lock_name = ? AND version = ?");
        deleteReaders = sql("DELETE FROM {readers} WHERE lock_name = ?");
        // ? = name, owner, lease, token, holder
        insertReader = sql("INSERT INTO {readers} (lock_name, owner_id, expires_at, fencing_token, holder)"
                + " VALUES (?, ?, {now+lease}, ?, ?)");
        // ? = lease, name, version, owner
        renewExclusive = sql("UPDATE {locks} SET expires_at = {now+lease} WHERE lock_name = ? AND version = ?"
                + " AND owner_id = ? AND lock_mode = 'X' AND expires_at > {now}");
        renewExclusiveIn = sql("UPDATE {locks} SET expires_at = {now+lease}"
                + " WHERE lock_mode = 'X' AND expires_at > {now} AND (lock_name, version, owner_id) IN ");
        // ? = lease, name
        extendShared = sql("UPDATE {locks} SET expires_at = GREATEST(expires_at, {now+lease})"
                + " WHERE lock_name = ? AND lock_mode = 'S' AND expires_at > {now}");
        // ? = lease, name, owner
        renewReader = sql("UPDATE {readers} SET expires_at = {now+lease} WHERE lock_name = ? AND owner_id = ?"
                + " AND expires_at > {now}");
        registerWaiter = notifies ? sql("UPDATE {locks} SET waiter = ? WHERE lock_name = ? AND waiter IS NULL") : null;
        // ? = name, owner (unique per acquisition); keeps the version: only a grant needs a new one
        releaseExclusive = notifying("UPDATE {locks} SET lock_mode = '-', owner_id = '', expires_at = {now}"
                + " WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X'");
        // ? = name; takes the name row's lock for the rest of the transaction
        lockSharedRow = sql("UPDATE {locks} SET version = version WHERE lock_name = ? AND lock_mode = 'S'");
        deleteReader = sql("DELETE FROM {readers} WHERE lock_name = ? AND owner_id = ?");
        // ? = name; a new version, so that a reader's join CAS on the old one fails
        freeShared = notifying(
                "UPDATE {locks} SET version = {next_token}, lock_mode = '-', expires_at = {now} WHERE lock_name = ?");
        // ? = name, name, name; 0 rows when no live reader is left
        setSharedExpiry = sql("UPDATE {locks} SET expires_at = (SELECT MAX(r.expires_at) FROM {readers} r"
                + " WHERE r.lock_name = ? AND r.expires_at > {now}) WHERE lock_name = ? AND EXISTS"
                + " (SELECT 1 FROM {readers} r WHERE r.lock_name = ? AND r.expires_at > {now})");
        // Not shared (an expired shared row may still have reader rows), expired, nobody in line; the
        // conditions are checked again on the row itself, so a grant meanwhile keeps it.
        String idle = "lock_mode <> 'S' AND expires_at <= {now+lease} AND queued = 0";
        purge = sql(
                dialect == Dialect.MARIADB
                        ? "DELETE FROM {locks} WHERE " + idle + " LIMIT 1000"
                        : "DELETE FROM {locks} WHERE lock_name IN (SELECT lock_name FROM {locks} WHERE " + idle
                                + " LIMIT 1000) AND " + idle.replace("{now+lease}", "{now}"));
        String grants = sql(
                """
                SELECT o.lock_name, o.lock_mode, o.owner_id, o.version, o.expires_at, o.holder,
                       r.owner_id, r.fencing_token, r.expires_at, r.holder,
                       (SELECT COUNT(*) FROM %s w WHERE w.lock_name = o.lock_name AND w.last_seen > {now+lease})
                FROM {locks} o
                LEFT JOIN {readers} r ON r.lock_name = o.lock_name AND o.lock_mode = 'S' AND r.expires_at > {now}
                WHERE o.lock_mode <> '-' AND o.expires_at > {now}%s
                ORDER BY o.lock_name, r.fencing_token"""
                        .formatted(waiters.table, "%s"));
        inspect = grants.formatted(" AND o.lock_name = ?");
        list = grants.formatted("");
        probes = Map.of(
                names.locks(),
                JdbcSchema.probe(names.locks()),
                names.readers(),
                JdbcSchema.probe(names.readers()),
                names.sequence(),
                dialect.probeSequence(names.sequence()),
                waiters.table,
                JdbcSchema.probe(waiters.table));
    }

    /** A release UPDATE; on PostgreSQL it NOTIFYs the waiter (fair: the head of the line) at commit. */
    private String notifying(String update) {
        if (!notifies) {
            return sql(update);
        }
        return SqlTemplate.notifying(sql(update), "u", fair ? waiters.notifyChannel("u") : "u.waiter");
    }

    private String sql(String text) {
        return template.sql(text);
    }
}
