package dev.baton.jdbc.row;

import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcSchema;
import dev.baton.jdbc.internal.SqlTemplate;
import dev.baton.jdbc.internal.TableNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every statement of the optimistic protocol ({@link OptimisticProtocol}), built once per dialect (H2,
 * PostgreSQL or MariaDB). {@code {opt}}, {@code {readers}},
 * {@code {now}} and {@code {now+lease}} (the lease bound in milliseconds) are filled in; the
 * comment above each statement lists its parameters.
 */
final class OptimisticStatements {
    private final TableNames names;
    final String read;
    final String insertRow;
    final String casExclusive;
    final String casShared;
    final String casJoinShared;
    final String deleteReaders;
    final String insertReader;
    final String renewExclusive;
    /** The batch renewal up to its IN list; ? = lease, then each grant's key ({@link BatchRenewal}). */
    final String renewExclusiveIn;

    final String extendShared;
    final String renewReader;
    final String releaseExclusive;
    final String releaseExclusiveByOwner;
    final String lockSharedRow;
    final String deleteReader;
    final String freeShared;
    final String setSharedExpiry;
    /** ? = minus the waiters' window (millis), name: the name's grant, as {@code LockRows#read} reads it. */
    final String inspect;
    /** ? = minus the waiters' window (millis): every live grant, as {@code LockRows#read} reads it. */
    final String list;
    /** Whether the release statements notify waiters (PostgreSQL) and so return rows. */
    final boolean notifies;
    /** PostgreSQL: registers a client's channel as the row's waiter if none is; null elsewhere. */
    final String registerWaiter;
    /** The fair hand-off's statements; its guard is in the granting statements when fair. */
    final WaiterStatements waiters;
    /** The names among a list that are held; up to the IN list ({@link JdbcLine}). */
    final String heldIn;

    private final boolean fair;
    private final SqlTemplate template;

    OptimisticStatements(Dialect dialect, TableNames names, boolean fair) {
        this.names = names;
        this.fair = fair;
        this.waiters = new WaiterStatements(dialect, names.locks() + "_opt_waiters");
        // A new holder clears the waiter request: clients still waiting register again on their
        // next attempt.
        this.template = new SqlTemplate(dialect)
                .with("{and_guard}", fair ? "AND {guard}" : "")
                .with("{guard}", waiters.guard())
                .with("{reset_waiter}", dialect == Dialect.POSTGRESQL ? ", waiter = NULL" : "")
                .with("{opt}", names.locks() + "_opt")
                .with("{readers}", names.locks() + "_opt_readers")
                // The holder description, where the tables have its column.
                .with("{holder_col}", ", holder")
                .with("{holder_val}", ", ?")
                .with("{holder_cast}", ", " + waiters.param("VARCHAR(120)"))
                .with("{set_holder}", ", holder = ?")
                .with("{o_holder}", "o.holder")
                .with("{r_holder}", "r.holder");
        this.heldIn =
                sql("SELECT lock_name FROM {opt} WHERE lock_mode <> '-' AND expires_at > {now}" + " AND lock_name IN ");
        // ? = name
        read = sql("SELECT version, lock_mode, CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END FROM {opt}"
                + " WHERE lock_name = ?");
        // Fair: each statement that can grant a free lock also requires that no live waiter other
        // than the requester is ahead of it (the guard, see WaiterStatements), still one statement.
        // ? = name, mode, owner, lease [, holder] [, the guard's]
        insertRow = dialect.insertIfAbsent(
                fair
                        ? sql("INSERT INTO {opt} (lock_name, version, lock_mode, owner_id, expires_at{holder_col})"
                                + " SELECT " + waiters.param("VARCHAR(512)") + ", 1, "
                                + waiters.param("CHAR(1)") + ", " + waiters.param("VARCHAR(64)")
                                + ", {now+lease}{holder_cast}" + waiters.fromDual + " WHERE {guard}")
                        : sql("INSERT INTO {opt} (lock_name, version, lock_mode, owner_id, expires_at{holder_col})"
                                + " VALUES (?, 1, ?, ?, {now+lease}{holder_val})"),
                "lock_name");
        // ? = owner, lease [, holder], name, version read [, the guard's]
        casExclusive = sql(
                "UPDATE {opt} SET version = version + 1, lock_mode = 'X', owner_id = ?,"
                        + " expires_at = {now+lease}{set_holder}{reset_waiter} WHERE lock_name = ? AND version = ? {and_guard}");
        // ? = lease, name, version read [, the guard's]
        casShared = sql("UPDATE {opt} SET version = version + 1, lock_mode = 'S', owner_id = '',"
                + " expires_at = {now+lease}{reset_waiter} WHERE lock_name = ? AND version = ? {and_guard}");
        // ? = lease, name, version read
        casJoinShared = sql("UPDATE {opt} SET version = version + 1,"
                + " expires_at = GREATEST(expires_at, {now+lease}) WHERE lock_name = ? AND version = ?");
        // ? = name
        deleteReaders = sql("DELETE FROM {readers} WHERE lock_name = ?");
        // ? = name, owner, lease, token [, holder]
        insertReader = sql("INSERT INTO {readers} (lock_name, owner_id, expires_at, fencing_token{holder_col})"
                + " VALUES (?, ?, {now+lease}, ?{holder_val})");
        // ? = lease, name, version, owner
        renewExclusive = sql("UPDATE {opt} SET expires_at = {now+lease} WHERE lock_name = ? AND version = ?"
                + " AND owner_id = ? AND lock_mode = 'X' AND expires_at > {now}");
        // ? = lease, then name, version and owner of each grant
        renewExclusiveIn = sql("UPDATE {opt} SET expires_at = {now+lease}"
                + " WHERE lock_mode = 'X' AND expires_at > {now} AND (lock_name, version, owner_id) IN ");
        // ? = lease, name
        extendShared = sql("UPDATE {opt} SET expires_at = GREATEST(expires_at, {now+lease})"
                + " WHERE lock_name = ? AND lock_mode = 'S' AND expires_at > {now}");
        // ? = lease, name, owner
        renewReader = sql("UPDATE {readers} SET expires_at = {now+lease} WHERE lock_name = ? AND owner_id = ?"
                + " AND expires_at > {now}");
        notifies = dialect == Dialect.POSTGRESQL;
        // ? = channel, name
        registerWaiter = notifies ? sql("UPDATE {opt} SET waiter = ? WHERE lock_name = ? AND waiter IS NULL") : null;
        // ? = name, version, owner
        releaseExclusive = notifying("UPDATE {opt} SET version = version + 1, lock_mode = '-', owner_id = '',"
                + " expires_at = {now} WHERE lock_name = ? AND version = ? AND owner_id = ? AND lock_mode = 'X'");
        // ? = name, owner
        releaseExclusiveByOwner = notifying("UPDATE {opt} SET version = version + 1, lock_mode = '-', owner_id = '',"
                + " expires_at = {now} WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X'");
        // ? = name; takes the name row's lock for the rest of the transaction
        lockSharedRow = sql("UPDATE {opt} SET version = version WHERE lock_name = ? AND lock_mode = 'S'");
        // ? = name, owner
        deleteReader = sql("DELETE FROM {readers} WHERE lock_name = ? AND owner_id = ?");
        // ? = name; a new version, so that a reader's CAS on the old one fails
        freeShared = notifying(
                "UPDATE {opt} SET version = version + 1, lock_mode = '-', expires_at = {now}" + " WHERE lock_name = ?");
        // ? = name, name, name; 0 rows when no live reader is left
        setSharedExpiry = sql("UPDATE {opt} SET expires_at = (SELECT MAX(r.expires_at) FROM {readers} r"
                + " WHERE r.lock_name = ? AND r.expires_at > {now}) WHERE lock_name = ? AND EXISTS"
                + " (SELECT 1 FROM {readers} r WHERE r.lock_name = ? AND r.expires_at > {now})");
        // Waiters: the live entries of the fair queue.
        String grants = sql(
                """
                SELECT o.lock_name, o.lock_mode, o.owner_id, o.version, o.expires_at, {o_holder},
                       r.owner_id, r.fencing_token, r.expires_at, {r_holder},
                       (SELECT COUNT(*) FROM %s w WHERE w.lock_name = o.lock_name AND w.last_seen > {now+lease})
                FROM {opt} o
                LEFT JOIN {readers} r ON r.lock_name = o.lock_name AND o.lock_mode = 'S' AND r.expires_at > {now}
                WHERE o.lock_mode <> '-' AND o.expires_at > {now}%s
                ORDER BY o.lock_name, r.fencing_token"""
                        .formatted(waiters.table, "%s"));
        inspect = grants.formatted(" AND o.lock_name = ?");
        list = grants.formatted("");
    }

    /** The strategy's tables, each with a statement that fails when it is missing. */
    Map<String, String> probes() {
        Map<String, String> probes = new LinkedHashMap<>();
        for (String table : List.of(names.locks() + "_opt", names.locks() + "_opt_readers", waiters.table)) {
            probes.put(table, JdbcSchema.probe(table));
        }
        return probes;
    }

    /**
     * A release UPDATE; on PostgreSQL wrapped so that it also runs {@code pg_notify} for each row it
     * changed (delivered when the transaction commits) and returns one row per row changed.
     */
    private String notifying(String update) {
        if (!notifies) {
            return sql(update);
        }
        // RETURNING yields the row as updated; releases leave waiter alone, so it is the request.
        // Fair: the head of the line's client, which the lock now waits for (see WaiterStatements).
        return SqlTemplate.notifying(sql(update), "u", fair ? waiters.notifyChannel("u") : "u.waiter");
    }

    private String sql(String text) {
        return template.sql(text);
    }
}
