package dev.baton.bench;

import java.util.List;

/**
 * A variant of the table strategy's fair hand-off ({@code FAIR-HANDOFF.md}, "line in the row"): the
 * line lives in the lock row itself, as parallel arrays (owner, lease, channel, last seen), instead
 * of a waiters table. A join and a hand-off are then one-row UPDATEs, with no index work on a second
 * table, no row lock on a waiter entry and no dead entries; and since every fact a release decides on
 * is in the row it locks, PostgreSQL's re-check of a concurrently updated row (EvalPlanQual) sees all
 * of them. The costs: a waiter's liveness refresh writes the hot row, and the line's length is
 * bounded by the row's size (fine for tens of waiters, not for thousands).
 *
 * <p>The release picks the first live entry in its snapshot ({@code k}) and writes only if that entry
 * is still at the same index on the latest row (a join appends, so indexes before it do not move; a
 * waiter that left shifts them, and the release runs again). Entries before the heir are dead and are
 * dropped with it.
 */
final class FairHandOffInRowStatements {
    private FairHandOffInRowStatements() {}

    private static final String LIVE = "> now() - interval '{window} milliseconds'";

    static FairHandOffStatements table(String prefix) {
        String takeOver =
                ("""
                WITH g AS MATERIALIZED (
                  SELECT pg_advisory_xact_lock(:k1, :k2)::text AS held
                  WHERE NOT EXISTS (SELECT 1 FROM {L} b WHERE b.lock_name = :name AND b.expires_at > now())),
                t AS (
                  INSERT INTO {L} AS l (lock_name, lock_mode, owner_id, expires_at, fencing_token)
                  SELECT :name, 'X', :owner, now() + :lease * interval '1 millisecond', nextval('{S}') FROM g
                  ON CONFLICT (lock_name) DO UPDATE
                  SET lock_mode = 'X', owner_id = EXCLUDED.owner_id, expires_at = EXCLUDED.expires_at,
                      fencing_token = nextval('{S}'),
                      q_owner = l.q_owner[COALESCE(array_position(l.q_owner, EXCLUDED.owner_id), 0) + 1:],
                      q_lease = l.q_lease[COALESCE(array_position(l.q_owner, EXCLUDED.owner_id), 0) + 1:],
                      q_channel = l.q_channel[COALESCE(array_position(l.q_owner, EXCLUDED.owner_id), 0) + 1:],
                      q_seen = l.q_seen[COALESCE(array_position(l.q_owner, EXCLUDED.owner_id), 0) + 1:]
                  WHERE l.expires_at <= now() AND (cardinality(l.q_owner) = 0
                    OR COALESCE((SELECT q.o FROM unnest(l.q_owner, l.q_seen) WITH ORDINALITY q(o, seen, i)
                                 WHERE q.seen {live} ORDER BY q.i LIMIT 1), EXCLUDED.owner_id) = EXCLUDED.owner_id)
                  RETURNING l.fencing_token AS token, l.expires_at)""")
                        .replace("{live}", LIVE);
        String granted = "SELECT 'G', token, floor(extract(epoch FROM expires_at) * 1000)::bigint FROM t";
        String join =
                """
                ,
                j AS (UPDATE {L} l SET q_owner = l.q_owner || :owner::varchar, q_lease = l.q_lease || :lease::bigint,
                        q_channel = l.q_channel || :channel::varchar, q_seen = l.q_seen || now()
                      WHERE :join AND NOT EXISTS (SELECT 1 FROM t) AND l.lock_name = :name AND l.owner_id <> :owner
                        AND NOT (:owner = ANY (l.q_owner))
                      RETURNING l.lock_name)
                """
                        + granted + "\nUNION ALL SELECT 'Q', 0, 0 FROM j";
        String release =
                ("""
                WITH s AS MATERIALIZED (SELECT 1 FROM {L} WHERE lock_name = :name AND owner_id = :owner AND lock_mode = 'X'),
                k AS MATERIALIZED (SELECT q.i::int AS i, q.o FROM {L} l, unnest(l.q_owner, l.q_seen) WITH ORDINALITY q(o, seen, i)
                                   WHERE l.lock_name = :name AND l.owner_id = :owner AND q.seen {live}
                                   ORDER BY q.i LIMIT 1),
                u AS (UPDATE {L} l SET owner_id = k.o, expires_at = now() + l.q_lease[k.i] * interval '1 millisecond',
                        fencing_token = nextval('{S}'), heir_channel = l.q_channel[k.i],
                        q_owner = l.q_owner[k.i + 1:], q_lease = l.q_lease[k.i + 1:],
                        q_channel = l.q_channel[k.i + 1:], q_seen = l.q_seen[k.i + 1:]
                      FROM k
                      WHERE l.lock_name = :name AND l.owner_id = :owner AND l.lock_mode = 'X' AND l.q_owner[k.i] = k.o
                      RETURNING l.owner_id AS heir, l.fencing_token AS token, l.expires_at, l.heir_channel AS channel),
                d AS (DELETE FROM {L} l
                      WHERE l.lock_name = :name AND l.owner_id = :owner AND l.lock_mode = 'X' AND NOT EXISTS (SELECT 1 FROM k)
                        AND NOT EXISTS (SELECT 1 FROM unnest(l.q_seen) x(seen) WHERE x.seen {live})
                      RETURNING 1),
                n AS (SELECT pg_notify(u.channel, u.heir || ' ' || u.token || ' '
                                       || floor(extract(epoch FROM u.expires_at) * 1000)::bigint)
                      FROM u WHERE u.channel IS NOT NULL)
                SELECT (SELECT count(*) FROM s), (SELECT count(*) FROM u), (SELECT count(*) FROM d), (SELECT count(*) FROM n)""")
                        .replace("{live}", LIVE);
        String plainRelease = "DELETE FROM {L} WHERE lock_name = :name AND owner_id = :owner AND lock_mode = 'X'"
                + " AND cardinality(q_owner) = 0";
        // Leaves the line: 0 rows means a release handed this waiter the lock first (release it then).
        String leave =
                """
                UPDATE {L} l SET
                  q_owner = l.q_owner[1:array_position(l.q_owner, :owner::varchar) - 1]
                            || l.q_owner[array_position(l.q_owner, :owner::varchar) + 1:],
                  q_lease = l.q_lease[1:array_position(l.q_owner, :owner::varchar) - 1]
                            || l.q_lease[array_position(l.q_owner, :owner::varchar) + 1:],
                  q_channel = l.q_channel[1:array_position(l.q_owner, :owner::varchar) - 1]
                              || l.q_channel[array_position(l.q_owner, :owner::varchar) + 1:],
                  q_seen = l.q_seen[1:array_position(l.q_owner, :owner::varchar) - 1]
                           || l.q_seen[array_position(l.q_owner, :owner::varchar) + 1:]
                WHERE l.lock_name = :name AND :owner = ANY (l.q_owner)""";
        String poll =
                """
                WITH r AS (UPDATE {L} l SET q_seen[array_position(l.q_owner, :owner::varchar)] = now()
                           WHERE l.lock_name = :name AND :owner = ANY (l.q_owner) RETURNING 1)
                SELECT COALESCE(l.owner_id = :owner AND l.lock_mode = 'X', false), l.fencing_token,
                       floor(extract(epoch FROM l.expires_at) * 1000)::bigint, COALESCE(l.expires_at <= now(), true),
                       (SELECT count(*) FROM r)
                FROM (SELECT 1) one LEFT JOIN {L} l ON l.lock_name = :name""";
        return new FairHandOffStatements(
                FairHandOffStatements.compile(takeOver + join, prefix),
                FairHandOffStatements.compile(release, prefix),
                FairHandOffStatements.compile(takeOver + "\n" + granted, prefix),
                FairHandOffStatements.compile(plainRelease, prefix),
                FairHandOffStatements.compile(leave, prefix),
                FairHandOffStatements.compile(poll, prefix),
                List.of(
                        "CREATE TABLE IF NOT EXISTS " + prefix + " (lock_name VARCHAR(512) PRIMARY KEY,"
                                + " lock_mode CHAR(1) NOT NULL, owner_id VARCHAR(64) NOT NULL,"
                                + " expires_at TIMESTAMP WITH TIME ZONE NOT NULL, fencing_token BIGINT NOT NULL,"
                                + " q_owner VARCHAR(64)[] NOT NULL DEFAULT '{}', q_lease BIGINT[] NOT NULL DEFAULT '{}',"
                                + " q_channel VARCHAR(63)[] NOT NULL DEFAULT '{}',"
                                + " q_seen TIMESTAMP WITH TIME ZONE[] NOT NULL DEFAULT '{}', heir_channel VARCHAR(63))",
                        "CREATE SEQUENCE IF NOT EXISTS " + prefix + "_seq"));
    }
}
