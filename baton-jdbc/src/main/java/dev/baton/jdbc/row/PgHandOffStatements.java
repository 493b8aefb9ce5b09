package dev.baton.jdbc.row;

import dev.baton.jdbc.internal.AdvisoryKeys;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.jdbc.internal.SqlTemplate;
import dev.baton.jdbc.internal.TableNames;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * PostgreSQL's fair hand-off ({@link HandOff}): every step one auto-commit statement with named
 * parameters (CTEs around each strategy's grant and hand-on, all here), the
 * hand-off release NOTIFYing the heir's client with its grant. A hand-off release that meets a join
 * committed after its snapshot writes nothing and is run again.
 */
final class PgHandOffStatements implements HandOffStatements {
    private final HandOffSql sql;
    private final JdbcConnections connections;
    private final TableNames names;

    /** @param table the table strategy's statements, else the optimistic one's */
    PgHandOffStatements(boolean table, JdbcProtocol.Context context) {
        this.sql = table ? table(context.dialect(), context.names()) : optimistic(context.dialect(), context.names());
        this.connections = context.connections();
        this.names = context.names();
    }

    @Override
    public boolean notifiesHeir() {
        return true;
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, boolean contended) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.first(
                    sql.acquire().text(),
                    rs -> HandOff.grant(request, rs.getLong(2), rs.getLong(3)),
                    args(sql.acquire(), request, null));
        }
    }

    @Override
    public HandOff.Joined join(LockRequest request, String channel) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.first(
                            sql.acquireOrJoin().text(),
                            rs -> "G".equals(rs.getString(1))
                                    ? HandOff.Joined.granted(HandOff.grant(request, rs.getLong(2), rs.getLong(3)))
                                    : HandOff.Joined.QUEUED,
                            args(sql.acquireOrJoin(), request, channel))
                    .orElse(HandOff.Joined.RACED);
        }
    }

    @Override
    public boolean release(String name, String owner) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.update(sql.release().text(), name, owner) == 1;
        }
    }

    @Override
    public HandOff.HandedOn handOn(String name, String owner) throws SQLException {
        SqlTemplate.Named handOff = sql.handOffRelease();
        Object[] args = handOff.params().stream()
                .map(p -> p.equals("name") ? name : owner)
                .toArray();
        long[] done;
        try (JdbcSession db = connections.open(false)) {
            done = db.first(handOff.text(), rs -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)}, args)
                    .orElseThrow();
        }
        return new HandOff.HandedOn(done[0] > 0, done[1] > 0, done[2] > 0, null);
    }

    @Override
    public HandOff.Tick tick(LockRequest request, boolean refresh) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.first(
                            sql.tick().text(),
                            rs -> new HandOff.Tick(
                                    rs.getBoolean(1) ? HandOff.grant(request, rs.getLong(2), rs.getLong(3)) : null,
                                    rs.getBoolean(4),
                                    rs.getLong(5) > 0),
                            args(sql.tick(), request, null))
                    .orElseThrow();
        }
    }

    @Override
    public boolean leave(String name, String owner) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.update(sql.leave().text(), name, owner) == 1;
        }
    }

    /** The statement's parameters by name. */
    private Object[] args(SqlTemplate.Named statement, LockRequest request, String channel) {
        List<String> params = statement.params();
        Object[] args = new Object[params.size()];
        int[] key = null;
        for (int i = 0; i < args.length; i++) {
            args[i] = switch (params.get(i)) {
                case "name" -> request.name();
                case "owner" -> request.ownerId();
                case "lease" -> JdbcTime.leaseMillis(request.leaseTime());
                case "holder" -> request.holder();
                case "channel" -> channel;
                case "key1", "key2" -> {
                    key = key != null ? key : AdvisoryKeys.grantKey(names, request.name());
                    yield params.get(i).equals("key1") ? key[0] : key[1];
                }
                default -> throw new IllegalStateException("unknown parameter " + params.get(i));
            };
        }
        return args;
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
    private record HandOffSql(
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
    private static HandOffSql handOff(
            Dialect dialect,
            String waiters,
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
                .with("{W}", waiters)
                .with("{window}", Long.toString(JdbcLine.WINDOW_MILLIS))
                .with("{holder_col}", ", holder")
                .with("{holder_val}", ", CAST(:holder AS VARCHAR(120))")
                .with("{holder_excluded}", ", holder = EXCLUDED.holder")
                .with("{holder_h}", ", holder = h.holder")
                .with("{none_ahead}", noneAhead(waiters))
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
    private static String noneAhead(String waiters) {
        return ("NOT EXISTS (SELECT 1 FROM {W} a WHERE a.lock_name = l.lock_name AND a.owner_id <> EXCLUDED.owner_id"
                        + " AND a.last_seen > {now} - INTERVAL '{window} milliseconds'"
                        + " AND NOT EXISTS (SELECT 1 FROM {W} m WHERE m.lock_name = a.lock_name"
                        + " AND m.owner_id = EXCLUDED.owner_id"
                        + " AND (m.place < a.place OR (m.place = a.place AND m.owner_id < a.owner_id))))")
                .replace("{W}", waiters)
                .replace("{window}", Long.toString(JdbcLine.WINDOW_MILLIS));
    }

    private static SqlTemplate.Named named(SqlTemplate template, String text) {
        return SqlTemplate.Named.of(template.sql(text));
    }

    /**
     * The hand-off on the name row: the grant draws its token under the per-name advisory lock on
     * the insert path and under the row lock on a takeover, which needs nobody live ahead once
     * someone is counted in line ({@code queued}); the release hands the row to the head with a new
     * token, or deletes it when the line is empty.
     */
    private static HandOffSql table(Dialect dialect, TableNames names) {
        String grant =
                """
                WITH g AS MATERIALIZED (
                  SELECT pg_advisory_xact_lock(:key1, :key2)::text AS held
                  WHERE NOT EXISTS (SELECT 1 FROM {L} b WHERE b.lock_name = :name AND b.expires_at > {now})),
                t AS (
                  INSERT INTO {L} AS l (lock_name, lock_mode, owner_id, expires_at, fencing_token, queued{holder_col})
                  SELECT :name, 'X', :owner, {now} + :lease * INTERVAL '1 millisecond', {next_token}, 0{holder_val}
                  FROM g
                  ON CONFLICT (lock_name) DO UPDATE
                  SET lock_mode = 'X', owner_id = EXCLUDED.owner_id, expires_at = EXCLUDED.expires_at,
                      fencing_token = {next_token}, waiter = NULL{holder_excluded}
                  WHERE l.expires_at <= {now} AND (l.queued = 0 OR {none_ahead})
                  RETURNING l.lock_name, l.fencing_token AS token, l.expires_at),
                d AS (DELETE FROM {R} r USING t WHERE r.lock_name = t.lock_name)""";
        String handOn =
                """
                u AS (UPDATE {L} l SET owner_id = h.owner_id, expires_at = {now} + h.lease_ms * INTERVAL '1 millisecond',
                        fencing_token = {next_token}, queued = GREATEST(l.queued - 1, 0), waiter = NULL{holder_h}
                      FROM s, h
                      WHERE l.lock_name = :name AND l.owner_id = :owner AND l.lock_mode = 'X'
                      RETURNING h.owner_id AS heir, l.fencing_token AS token, l.expires_at, h.channel),
                f AS (DELETE FROM {L} l WHERE l.lock_name = :name AND l.owner_id = :owner AND l.lock_mode = 'X'
                        AND (l.queued = 0 OR (l.queued = (SELECT s.queued FROM s) AND NOT EXISTS (SELECT 1 FROM c)))
                      RETURNING 1)""";
        return handOff(
                dialect,
                names.locks() + "_waiters",
                names.locks(),
                names.readers(),
                dialect.nextToken(names.sequence()),
                grant,
                "DELETE FROM {L} WHERE lock_name = :name AND owner_id = :owner AND lock_mode = 'X' AND queued = 0",
                handOn,
                "(SELECT count(*) FROM f)",
                "l.fencing_token",
                "l.expires_at <= {now}");
    }

    /**
     * The hand-off on the kept name row: the grant is one upsert (the read and the CAS of the portable
     * path in one statement), which needs nobody live ahead once someone is counted in line; the
     * release hands the row to the head with the next version, or frees it when the line is empty.
     */
    private static HandOffSql optimistic(Dialect dialect, TableNames names) {
        String grant =
                """
                WITH t AS (
                  INSERT INTO {L} AS l (lock_name, version, lock_mode, owner_id, expires_at, queued{holder_col})
                  VALUES (:name, 1, 'X', :owner, {now} + :lease * INTERVAL '1 millisecond', 0{holder_val})
                  ON CONFLICT (lock_name) DO UPDATE
                  SET version = l.version + 1, lock_mode = 'X', owner_id = EXCLUDED.owner_id,
                      expires_at = EXCLUDED.expires_at, waiter = NULL{holder_excluded}
                  WHERE (l.lock_mode = '-' OR l.expires_at <= {now}) AND (l.queued = 0 OR {none_ahead})
                  RETURNING l.lock_name, l.version AS token, l.expires_at)""";
        String handOn =
                """
                u AS (UPDATE {L} l SET version = l.version + 1,
                        lock_mode = CASE WHEN h.owner_id IS NULL THEN '-' ELSE 'X' END,
                        owner_id = COALESCE(h.owner_id, ''),
                        expires_at = CASE WHEN h.owner_id IS NULL THEN {now}
                                          ELSE {now} + h.lease_ms * INTERVAL '1 millisecond' END,
                        queued = CASE WHEN h.owner_id IS NULL THEN 0 ELSE GREATEST(l.queued - 1, 0) END,
                        waiter = NULL{holder_h}
                      FROM s LEFT JOIN h ON true
                      WHERE l.lock_name = :name AND l.owner_id = :owner AND l.lock_mode = 'X'
                        AND (h.owner_id IS NOT NULL OR (l.queued = s.queued AND NOT EXISTS (SELECT 1 FROM c)))
                      RETURNING h.owner_id AS heir, l.version AS token, l.expires_at, h.channel)""";
        String opt = names.locks() + "_opt";
        return handOff(
                dialect,
                names.locks() + "_opt_waiters",
                opt,
                names.locks() + "_opt_readers",
                "",
                grant,
                "UPDATE {L} SET version = version + 1, lock_mode = '-', owner_id = '', expires_at = {now}"
                        + " WHERE lock_name = :name AND owner_id = :owner AND lock_mode = 'X' AND queued = 0",
                handOn,
                "(SELECT count(*) FROM u WHERE u.heir IS NULL)",
                "l.version",
                "(l.lock_mode = '-' OR l.expires_at <= {now})");
    }
}
