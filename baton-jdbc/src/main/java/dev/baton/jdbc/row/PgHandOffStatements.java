package dev.baton.jdbc.row;

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

/** PostgreSQL's fair {@link HandOff}: each step one statement, the release NOTIFYing the heir its grant. */
final class PgHandOffStatements implements HandOffStatements {
    private final JdbcConnections connections;
    /** Grants if the lock is free and nobody live is ahead: (token, expiry ms), or no row. */
    private final SqlTemplate.Named acquire;
    /** The same, or joins the line: ('G', token, expiry ms), ('Q', 0, 0), no row: raced (try again). */
    private final SqlTemplate.Named acquireOrJoin;
    /** Frees the lock when nobody is counted in line: 1 row, or 0 (someone joined, or lost). */
    private final SqlTemplate.Named release;
    /** Hands on or frees: (held, handed, freed, notified); (1, 0, 0, 0): a join raced it, run again. */
    private final SqlTemplate.Named handOffRelease;
    /** Refreshes the entry, purges dead ones, reads the lock: (owner, token, expiry ms, free, in line). */
    private final SqlTemplate.Named tick;
    /** Deletes the waiter's entry: 0 rows once a release handed it the lock. */
    private final SqlTemplate.Named leave;

    PgHandOffStatements(JdbcProtocol.Context context) {
        this.connections = context.connections();
        Dialect dialect = context.dialect();
        TableNames names = context.names();
        String ms = "floor(extract(epoch FROM %s) * 1000)::bigint";
        // The grant: the read and the CAS in one upsert, which needs nobody live ahead once someone is
        // counted in line; a takeover draws the token under the row lock, an insert as RowProtocol says.
        String grant =
                """
                WITH t AS (
                  INSERT INTO {L} AS l (lock_name, version, lock_mode, owner_id, expires_at, queued, holder)
                  VALUES (:name, {next_token}, 'X', :owner, {now} + :lease * INTERVAL '1 millisecond', 0,
                          CAST(:holder AS VARCHAR(120)))
                  ON CONFLICT (lock_name) DO UPDATE
                  SET version = {next_token}, lock_mode = 'X', owner_id = EXCLUDED.owner_id,
                      expires_at = EXCLUDED.expires_at, waiter = NULL, holder = EXCLUDED.holder
                  WHERE (l.lock_mode = '-' OR l.expires_at <= {now}) AND (l.queued = 0 OR {none_ahead})
                  RETURNING l.lock_name, l.version AS token, l.expires_at)""";
        String granted = "SELECT 'G', token, " + ms.formatted("expires_at") + " FROM t";
        String join =
                """
                ,
                j AS (UPDATE {L} l SET queued = l.queued + 1
                      WHERE NOT EXISTS (SELECT 1 FROM t) AND l.lock_name = :name AND l.owner_id <> :owner
                      RETURNING l.lock_name),
                w AS (INSERT INTO {W} (lock_name, owner_id, place, last_seen, channel, lease_ms, holder)
                      SELECT :name, :owner, {now}, {now}, CAST(:channel AS VARCHAR(63)), :lease,
                             CAST(:holder AS VARCHAR(120)) FROM j
                      ON CONFLICT (lock_name, owner_id) DO UPDATE SET last_seen = {now}, channel = EXCLUDED.channel)
                """
                        + granted + " UNION ALL SELECT 'Q', 0, 0 FROM j";
        // The head is locked: a waiter leaving at once deleted its entry first (no head: run again) or finds
        // it gone and releases what it was handed. Shared waiters have no lease; the token is drawn locked.
        String handingOn =
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
                u AS (UPDATE {L} l SET version = CASE WHEN h.owner_id IS NULL THEN l.version ELSE {next_token} END,
                        lock_mode = CASE WHEN h.owner_id IS NULL THEN '-' ELSE 'X' END,
                        owner_id = COALESCE(h.owner_id, ''),
                        expires_at = CASE WHEN h.owner_id IS NULL THEN {now}
                                          ELSE {now} + h.lease_ms * INTERVAL '1 millisecond' END,
                        queued = CASE WHEN h.owner_id IS NULL THEN 0 ELSE GREATEST(l.queued - 1, 0) END,
                        waiter = NULL, holder = h.holder
                      FROM s LEFT JOIN h ON true
                      WHERE l.lock_name = :name AND l.owner_id = :owner AND l.lock_mode = 'X'
                        AND (h.owner_id IS NOT NULL OR (l.queued = s.queued AND NOT EXISTS (SELECT 1 FROM c)))
                      RETURNING h.owner_id AS heir, l.version AS token, l.expires_at, h.channel),
                x AS (DELETE FROM {W} w USING u WHERE u.heir IS NOT NULL AND w.lock_name = :name AND w.owner_id = u.heir),
                n AS (SELECT pg_notify(u.channel, chr(2) || u.heir || ' ' || u.token || ' ' || {ms_u}) FROM u
                      WHERE u.heir IS NOT NULL AND u.channel IS NOT NULL)
                SELECT (SELECT count(*) FROM s), (SELECT count(*) FROM u WHERE u.heir IS NOT NULL),
                       (SELECT count(*) FROM u WHERE u.heir IS NULL), (SELECT count(*) FROM n)""";
        String reading =
                """
                WITH r AS (UPDATE {W} SET last_seen = {now} WHERE lock_name = :name AND owner_id = :owner RETURNING 1),
                p AS (DELETE FROM {W} WHERE lock_name = :name
                        AND last_seen <= {now} - INTERVAL '{window} milliseconds')
                SELECT COALESCE(l.owner_id = :owner AND l.lock_mode = 'X' AND l.expires_at > {now}, false),
                       l.version, {ms_l}, COALESCE(l.lock_mode = '-' OR l.expires_at <= {now}, true),
                       (SELECT count(*) FROM r)
                FROM (SELECT 1) one LEFT JOIN {L} l ON l.lock_name = :name""";
        SqlTemplate filled = new SqlTemplate(dialect)
                .with("{ms_u}", ms.formatted("u.expires_at"))
                .with("{ms_l}", ms.formatted("l.expires_at"))
                .with("{none_ahead}", noneAhead(names.waiters()))
                .with("{W}", names.waiters())
                .with("{window}", Long.toString(JdbcLine.WINDOW_MILLIS))
                .with("{L}", names.locks())
                .with("{next_token}", dialect.nextToken(names.sequence()));
        acquire = named(filled, grant + "\n" + granted);
        acquireOrJoin = named(filled, grant + join);
        release = named(
                filled,
                "UPDATE {L} SET lock_mode = '-', owner_id = '', expires_at = {now}"
                        + " WHERE lock_name = :name AND owner_id = :owner AND lock_mode = 'X' AND queued = 0");
        handOffRelease = named(filled, handingOn);
        tick = named(filled, reading);
        leave = named(filled, "DELETE FROM {W} WHERE lock_name = :name AND owner_id = :owner");
    }

    @Override
    public boolean notifiesHeir() {
        return true;
    }

    @Override
    public Optional<Grant> acquire(LockRequest request) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.first(
                    acquire.text(),
                    rs -> HandOff.grant(request, rs.getLong(2), rs.getLong(3)),
                    args(acquire, request, null));
        }
    }

    @Override
    public HandOff.Joined join(LockRequest request, String channel) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.first(
                            acquireOrJoin.text(),
                            rs -> "G".equals(rs.getString(1))
                                    ? HandOff.Joined.granted(HandOff.grant(request, rs.getLong(2), rs.getLong(3)))
                                    : HandOff.Joined.QUEUED,
                            args(acquireOrJoin, request, channel))
                    .orElse(HandOff.Joined.RACED);
        }
    }

    @Override
    public boolean release(String name, String owner) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.update(release.text(), name, owner) == 1;
        }
    }

    @Override
    public HandOff.HandedOn handOn(String name, String owner) throws SQLException {
        Object[] args = handOffRelease.params().stream()
                .map(p -> p.equals("name") ? name : owner)
                .toArray();
        long[] done;
        try (JdbcSession db = connections.open(false)) {
            done = db.first(handOffRelease.text(), rs -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)}, args)
                    .orElseThrow();
        }
        return new HandOff.HandedOn(done[0] > 0, done[1] > 0, done[2] > 0, null);
    }

    @Override
    public HandOff.Tick tick(LockRequest request, boolean refresh) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.first(
                            tick.text(),
                            rs -> new HandOff.Tick(
                                    rs.getBoolean(1) ? HandOff.grant(request, rs.getLong(2), rs.getLong(3)) : null,
                                    rs.getBoolean(4),
                                    rs.getLong(5) > 0),
                            args(tick, request, null))
                    .orElseThrow();
        }
    }

    @Override
    public boolean leave(String name, String owner) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.update(leave.text(), name, owner) == 1;
        }
    }

    private Object[] args(SqlTemplate.Named statement, LockRequest request, String channel) {
        List<String> params = statement.params();
        Object[] args = new Object[params.size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = switch (params.get(i)) {
                case "name" -> request.name();
                case "owner" -> request.ownerId();
                case "lease" -> JdbcTime.leaseMillis(request.leaseTime());
                case "holder" -> request.holder();
                case "channel" -> channel;
                default -> throw new IllegalStateException("unknown parameter " + params.get(i));
            };
        }
        return args;
    }

    /** No live waiter other than the requester ({@code EXCLUDED.owner_id}) is ahead of it in row l's line. */
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
}
