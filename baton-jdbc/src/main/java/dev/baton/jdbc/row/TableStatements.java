package dev.baton.jdbc.row;

import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.PgNotifications;
import dev.baton.jdbc.internal.SqlTemplate;
import dev.baton.jdbc.internal.TableNames;
import java.util.Map;

/**
 * Every statement of the table protocol ({@link TableProtocol}) for one dialect (H2 or PostgreSQL)
 * and table, built once. In the templates, {@code
 * {locks}}, {@code {readers}}, {@code {now}} and {@code {next_token}} stand for the tables, the
 * database clock and the sequence; {@code {now+lease}} is the clock plus the lease, bound in
 * milliseconds as a parameter. "Returning" statements yield (fencing_token, expires_at) of the
 * rows they wrote. The comment above each statement lists its parameters in order.
 *
 * <p>Protocol (every expiry is computed and compared on the database's clock):
 *
 * <ul>
 *   <li>Exclusive acquire, one transaction: insert the name row ('X', owner) unless it exists; if it
 *       existed, take it over only if it has expired (guarded UPDATE) and delete its readers. On
 *       PostgreSQL this is one auto-commit statement (a data-modifying CTE around {@code INSERT ... ON
 *       CONFLICT DO UPDATE ... WHERE expired}), which also registers the waiter when the lock is busy;
 *       a lock the statement's snapshot already shows live is answered without any write or lock.
 *   <li>Shared acquire, one transaction: insert the name row ('S', owner ''), or extend a live 'S'
 *       row, or take over an expired row of any mode as 'S' (deleting its readers); then insert the
 *       reader row. The 'S' row's expiry is the latest of its readers' expiries.
 *   <li>A writer decides on the name row's own columns only (mode, expiry), never on a subquery over
 *       readers, so PostgreSQL's READ COMMITTED re-check of a concurrently updated row (EvalPlanQual)
 *       sees everything the decision depends on.
 *   <li>Lock order is always the name row first, then reader rows: no deadlock between readers and
 *       writers.
 *   <li>The fencing token is drawn from the sequence while the transaction holds the name row's lock
 *       (after the insert, or inside the guarded update), so grants of one name draw their tokens in
 *       the order they are granted: tokens strictly increase per name although rows are deleted on
 *       release. (Drawing it in the INSERT's VALUES would not do by itself: the value is computed
 *       before the insert meets the key, and a grant-and-release by another owner could fit in
 *       between.) On PostgreSQL the single-statement exclusive acquire does draw it with the insert,
 *       and that is made safe by a transaction-level advisory lock on the name ({@code
 *       pg_advisory_xact_lock}, two-int key space) that every grant, exclusive or shared, takes
 *       before drawing its token and holds until it commits: no other grant of the name can happen
 *       between the draw and the insert.
 *   <li>Fair on PostgreSQL ({@link HandOff}): the release that hands the lock to the head of the line
 *       draws the next token in the UPDATE of the name row, under its row lock, so after every grant
 *       of the row before it; a takeover of an expired row by the head does the same.
 *   <li>Renew and release match the owner id, so they never touch another owner's grant.
 *   <li>PostgreSQL: a failed attempt registers its client's LISTEN channel in the row's {@code waiter}
 *       column if it is empty; the release statement NOTIFYs that channel (see {@link
 *       PgNotifications}); a new grant clears it.
 * </ul>
 */
final class TableStatements {
    private static final String WRITTEN = "fencing_token, expires_at";

    private final Dialect dialect;

    final String insertNameRow;
    /**
     * PostgreSQL: the whole exclusive acquire in one auto-commit statement (see {@link
     * #acquireExclusiveOne}); null elsewhere.
     */
    final String acquireExclusiveOne;
    /** The same, registering a channel as the row's waiter when the lock is busy; null elsewhere. */
    final String acquireExclusiveOneRegistering;
    /** PostgreSQL: the per-name transaction-level advisory lock every grant takes first; null elsewhere. */
    final String grantLock;

    final String drawToken;
    final String takeOverExpired;
    final String deleteReaders;
    final String extendShared;
    final String insertReader;
    final String renewExclusive;
    /** The batch renewal up to its IN list; ? = lease, then each grant's key ({@link BatchRenewal}). */
    final String renewExclusiveIn;

    final String renewReader;
    final String releaseExclusive;
    final String lockSharedRow;
    final String deleteReader;
    final String deleteExpiredReaders;
    final String latestReaderExpiry;
    final String deleteSharedRow;
    final String setSharedExpiry;
    /** ? = minus the waiters' window (millis), name: the name's grant, as {@code LockRows#read} reads it. */
    final String inspect;
    /** ? = minus the waiters' window (millis): every live grant, as {@code LockRows#read} reads it. */
    final String list;
    /**
     * Whether the releases notify a registered waiter (PostgreSQL); they then return one row per
     * row they deleted.
     */
    final boolean notifies;
    /** PostgreSQL: registers a client's channel as the row's waiter if none is; null elsewhere. */
    final String registerWaiter;
    /** Object name to a statement that fails when the object does not exist. */
    final Map<String, String> probes;
    /** The fair hand-off's statements; its guard is in the granting statements when fair. */
    final WaiterStatements waiters;
    /** The names among a list that are held; up to the IN list ({@link JdbcLine}). */
    final String heldIn;

    private final boolean fair;
    private final SqlTemplate template;

    TableStatements(Dialect dialect, TableNames names, boolean fair) {
        this.dialect = dialect;
        this.fair = fair;
        this.notifies = dialect == Dialect.POSTGRESQL;
        this.waiters = new WaiterStatements(dialect, names.locks() + "_waiters");
        this.template = new SqlTemplate(dialect)
                .with("{and_guard}", fair ? "AND {guard}" : "")
                .with("{guard}", waiters.guard())
                .with("{locks}", names.locks())
                .with("{readers}", names.readers())
                .with("{next_token}", dialect.nextToken(names.sequence()))
                // A new holder: the clients still waiting register again on their next attempt.
                .with("{reset_waiter}", dialect == Dialect.POSTGRESQL ? ", waiter = NULL" : "")
                // The holder description, where the tables have its column: ? after the lease.
                .with("{holder_col}", ", holder")
                .with("{holder_val}", ", ?")
                .with("{holder_cast}", ", " + waiters.param("VARCHAR(120)"))
                .with("{set_holder}", ", holder = ?")
                .with("{holder_excluded}", ", holder = EXCLUDED.holder")
                .with("{l_holder}", "l.holder")
                .with("{r_holder}", "r.holder");
        this.heldIn = sql("SELECT lock_name FROM {locks} WHERE expires_at > {now} AND lock_name IN ");

        // Acquire. The token is drawn after the insert, under the new row's lock (see class doc).
        // ? = name, mode, owner, lease [, the guard's]. Fair: inserted only when nobody waits ahead.
        insertNameRow = dialect.insertIfAbsent(
                fair
                        ? sql("INSERT INTO {locks} (lock_name, lock_mode, owner_id, expires_at, fencing_token"
                                + "{holder_col}) SELECT " + waiters.param("VARCHAR(512)") + ", "
                                + waiters.param("CHAR(1)") + ", " + waiters.param("VARCHAR(64)")
                                + ", {now+lease}, 0{holder_cast}" + waiters.fromDual
                                + " WHERE {guard}")
                        : sql(
                                """
                        INSERT INTO {locks} (lock_name, lock_mode, owner_id, expires_at, fencing_token{holder_col})
                        VALUES (?, ?, ?, {now+lease}, 0{holder_val})"""),
                "lock_name");
        if (dialect == Dialect.POSTGRESQL) {
            // One round trip, in its own (auto-commit) transaction:
            // g: unless the snapshot shows a live row (then the lock is busy: no lock, no write),
            //    take the name's transaction-level advisory lock. Every grant of the name, exclusive
            //    or shared, holds it from before drawing its token until it commits, so grants draw
            //    their tokens in the order they are granted even on the insert path, where the token
            //    is drawn before the insert meets the key (see the class comment).
            // t: insert the row, or take over an expired one under its row lock.
            // d: a takeover deletes the readers of the expired grant (name row first, then readers).
            // w: (registering variant) a busy lock gets this client's channel as its waiter.
            // Fair: g also requires that no live waiter other than the requester is ahead (the
            //    guard, see WaiterStatements), so a busy or reserved lock is answered without a write.
            // ? = key1, key2, name [, the guard's], name, owner, lease [, holder], lease [, channel, name]
            String one =
                    """
                    WITH g AS MATERIALIZED (
                      SELECT pg_advisory_xact_lock(?, ?)::text AS held
                      WHERE NOT EXISTS (SELECT 1 FROM {locks} b WHERE b.lock_name = ? AND b.expires_at > {now})
                      {and_guard}),
                    t AS (
                      INSERT INTO {locks} AS l (lock_name, lock_mode, owner_id, expires_at, fencing_token{holder_col})
                      SELECT ?, 'X', ?, {now+lease}, {next_token}{holder_val} FROM g
                      ON CONFLICT (lock_name) DO UPDATE
                      SET lock_mode = 'X', owner_id = EXCLUDED.owner_id, expires_at = {now+lease},
                          fencing_token = {next_token}, waiter = NULL{holder_excluded}
                      WHERE l.expires_at <= {now}
                      RETURNING l.lock_name, l.fencing_token, l.expires_at),
                    d AS (DELETE FROM {readers} r USING t WHERE r.lock_name = t.lock_name)%s
                    SELECT fencing_token, floor(date_part('epoch', expires_at) * 1000)::bigint FROM t""";
            acquireExclusiveOne = sql(one.formatted(""));
            acquireExclusiveOneRegistering = sql(
                    one.formatted(
                            """
                    ,
                    w AS (UPDATE {locks} SET waiter = ?
                          WHERE lock_name = ? AND waiter IS NULL AND NOT EXISTS (SELECT 1 FROM t))"""));
            // ? = key1, key2
            grantLock = "SELECT pg_advisory_xact_lock(?, ?)::text";
        } else {
            acquireExclusiveOne = null;
            acquireExclusiveOneRegistering = null;
            grantLock = null;
        }
        // ? = name
        drawToken = returning("UPDATE {locks} SET fencing_token = {next_token} WHERE lock_name = ?");
        // ? = mode, owner, lease [, holder], name [, the guard's]
        takeOverExpired = returning(
                """
                UPDATE {locks}
                SET lock_mode = ?, owner_id = ?, expires_at = {now+lease}, fencing_token = {next_token}{set_holder}{reset_waiter}
                WHERE lock_name = ? AND expires_at <= {now} {and_guard}""");
        // ? = name
        deleteReaders = sql("DELETE FROM {readers} WHERE lock_name = ?");
        // ? = lease, name
        extendShared = sql(
                """
                UPDATE {locks} SET expires_at = GREATEST(expires_at, {now+lease})
                WHERE lock_name = ? AND lock_mode = 'S' AND expires_at > {now}""");
        // LEAST: a reader never outlives its name row, whose expiry stays the latest of its readers.
        // ? = name, owner, lease, name [, holder]
        insertReader = returning(
                """
                INSERT INTO {readers} (lock_name, owner_id, expires_at, fencing_token{holder_col})
                VALUES (?, ?, LEAST({now+lease}, (SELECT l.expires_at FROM {locks} l WHERE l.lock_name = ?)),
                        {next_token}{holder_val})""");

        // Renew.
        // ? = lease, name, owner
        renewExclusive = returning(
                """
                UPDATE {locks} SET expires_at = {now+lease}
                WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X' AND expires_at > {now}""");
        // ? = lease, then name and owner of each grant
        renewExclusiveIn = sql("UPDATE {locks} SET expires_at = {now+lease}"
                + " WHERE lock_mode = 'X' AND expires_at > {now} AND (lock_name, owner_id) IN ");
        // ? = lease, name, name, owner
        renewReader = returning(
                """
                UPDATE {readers}
                SET expires_at = LEAST({now+lease}, (SELECT l.expires_at FROM {locks} l WHERE l.lock_name = ?))
                WHERE lock_name = ? AND owner_id = ? AND expires_at > {now}""");

        // Release.
        // ? = name, owner
        releaseExclusive = notifying("DELETE FROM {locks} WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X'");
        // ? = name
        lockSharedRow = sql("SELECT lock_mode FROM {locks} WHERE lock_name = ? AND lock_mode = 'S' FOR UPDATE");
        // ? = name, owner
        deleteReader = sql("DELETE FROM {readers} WHERE lock_name = ? AND owner_id = ?");
        // ? = name
        deleteExpiredReaders = sql("DELETE FROM {readers} WHERE lock_name = ? AND expires_at <= {now}");
        // ? = name
        latestReaderExpiry = sql("SELECT MAX(expires_at) FROM {readers} WHERE lock_name = ?");
        // ? = name
        deleteSharedRow = notifying("DELETE FROM {locks} WHERE lock_name = ? AND lock_mode = 'S'");
        // ? = channel, name
        registerWaiter = notifies ? sql("UPDATE {locks} SET waiter = ? WHERE lock_name = ? AND waiter IS NULL") : null;
        // ? = expiry, name
        setSharedExpiry = sql("UPDATE {locks} SET expires_at = ? WHERE lock_name = ? AND lock_mode = 'S'");

        // Diagnostics and schema.
        // Waiters: the live entries of the fair queue.
        String grants = sql(
                """
                SELECT l.lock_name, l.lock_mode, l.owner_id, l.fencing_token, l.expires_at, {l_holder},
                       r.owner_id, r.fencing_token, r.expires_at, {r_holder},
                       (SELECT COUNT(*) FROM %s w WHERE w.lock_name = l.lock_name AND w.last_seen > {now+lease})
                FROM {locks} l
                LEFT JOIN {readers} r ON r.lock_name = l.lock_name AND l.lock_mode = 'S' AND r.expires_at > {now}
                WHERE l.expires_at > {now}%s
                ORDER BY l.lock_name, r.fencing_token"""
                        .formatted(waiters.table, "%s"));
        inspect = grants.formatted(" AND l.lock_name = ?");
        list = grants.formatted("");
        probes = Map.of(
                names.locks(),
                sql("SELECT 1 FROM {locks} WHERE 1 = 0"),
                names.readers(),
                sql("SELECT 1 FROM {readers} WHERE 1 = 0"),
                names.sequence(),
                dialect.probeSequence(names.sequence()),
                waiters.table,
                sql("SELECT 1 FROM " + waiters.table + " WHERE 1 = 0"));
    }

    private String returning(String template) {
        return dialect.returning(sql(template), WRITTEN);
    }

    /**
     * A release DELETE; on PostgreSQL wrapped so that, for each row it deleted, it NOTIFYs the
     * registered waiter's channel if there is one (delivered when the transaction commits) and
     * returns one row.
     */
    private String notifying(String delete) {
        if (!notifies) {
            return sql(delete);
        }
        // Fair: the head of the line's client, which the lock now waits for (see WaiterStatements).
        return SqlTemplate.notifying(sql(delete), "d", fair ? waiters.notifyChannel("d") : "d.waiter");
    }

    private String sql(String text) {
        return template.sql(text);
    }
}
