package dev.baton.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SQL of the fair hand-off protocol (see docs/design/fair-handoff.md) on PostgreSQL, for the
 * table strategy (a row per name, kept, its version the fencing token), exactly as the design states
 * it. Named parameters
 * ({@code :name}) are turned into JDBC's {@code ?} with the order of their names.
 *
 * <p>The line is the waiters table; the lock row carries {@code queued}, a count of the entries
 * (an upper bound: entries of waiters that died or left still count until the line drains). It serves
 * twice: a release reads the waiters table only when it is above 0 (nobody waiting costs nothing),
 * and a join increments it, so a release that would free the lock on a snapshot taken before a join
 * committed sees a changed {@code queued} on its row's re-check (EvalPlanQual) and does nothing (the
 * client runs it again, with a new snapshot). A release that hands the lock on needs no such check:
 * the head it locked is ahead of any later joiner, and {@code queued - 1} is computed on the row's
 * latest version.
 */
record FairHandOffStatements(
        Sql acquire, Sql release, Sql plainAcquire, Sql plainRelease, Sql leave, Sql poll, List<String> ddl) {

    /** How long a waiter's entry counts after its last refresh. */
    static final long WINDOW_MILLIS = 2_000;

    /** One statement: its JDBC text and the names of its parameters in order. */
    record Sql(String text, List<String> params) {
        private static final Pattern PARAM = Pattern.compile("(?<!:):([a-z][a-z0-9]*)");

        static Sql of(String named) {
            List<String> params = new ArrayList<>();
            Matcher m = PARAM.matcher(named);
            StringBuilder text = new StringBuilder();
            while (m.find()) {
                params.add(m.group(1));
                m.appendReplacement(text, "?");
            }
            m.appendTail(text);
            return new Sql(text.toString(), List.copyOf(params));
        }
    }

    private static final String MS = "floor(extract(epoch FROM %s) * 1000)::bigint";

    /** No live waiter other than the requester (EXCLUDED.owner_id) is ahead of it in the line of l. */
    private static final String NONE_AHEAD =
            """
            NOT EXISTS (SELECT 1 FROM {W} a WHERE a.lock_name = l.lock_name AND a.owner_id <> EXCLUDED.owner_id
              AND a.last_seen > now() - interval '{window} milliseconds'
              AND a.place < COALESCE((SELECT m.place FROM {W} m
                                      WHERE m.lock_name = l.lock_name AND m.owner_id = EXCLUDED.owner_id),
                                     9223372036854775807))""";

    /** The acquire's result: the grant, if {@code t} wrote one. */
    private static final String GRANTED = "SELECT 'G', token, {ms_expires} FROM t";

    /**
     * The joining half of an acquire, when the grant {@code t} is empty and
     * the caller will wait ({@code :join}), count one more in {@code queued} (a write on the lock row,
     * which orders the join against a release) and write the entry (place from the sequence: strict
     * FIFO). A waiter that takes the lock with this statement (after a missed hand-off: an expired
     * holder) deletes its entry with {@link #leave} next: rare, so the common statement carries no
     * third data-modifying step.
     */
    private static final String JOIN =
            """
            j AS (UPDATE {L} l SET queued = l.queued + 1
                  WHERE :join AND NOT EXISTS (SELECT 1 FROM t) AND l.lock_name = :name AND l.owner_id <> :owner
                  RETURNING l.lock_name),
            w AS (INSERT INTO {W} (lock_name, owner_id, place, last_seen, channel, lease_ms)
                  SELECT :name, :owner, nextval('{S}'), now(), :channel, :lease FROM j
                  ON CONFLICT (lock_name, owner_id) DO UPDATE SET last_seen = now(), channel = EXCLUDED.channel)
            """
                    + GRANTED + """

            UNION ALL SELECT 'Q', 0, 0 FROM j""";

    /**
     * The line as the release's snapshot shows it (read only when {@code queued > 0}), and its head,
     * locked: a waiter leaving at the same moment either deletes its entry first (the head is then
     * missing, and the release runs again) or finds it gone (it was handed the lock, and releases it).
     */
    private static final String LINE =
            """
            s AS MATERIALIZED (SELECT l.queued FROM {L} l
                               WHERE l.lock_name = :name AND l.owner_id = :owner AND l.lock_mode = 'X'),
            c AS MATERIALIZED (SELECT w.owner_id, w.place FROM {W} w
                               WHERE (SELECT s.queued FROM s) > 0 AND w.lock_name = :name AND w.owner_id <> :owner
                                 AND w.last_seen > now() - interval '{window} milliseconds'),
            h AS MATERIALIZED (SELECT w.owner_id, w.channel, w.lease_ms FROM {W} w
                               WHERE w.lock_name = :name
                                 AND w.owner_id = (SELECT c.owner_id FROM c ORDER BY c.place LIMIT 1)
                               FOR UPDATE),""";

    /**
     * The table strategy on PostgreSQL, on tables {@code prefix}, {@code prefix_waiters}: the row stays,
     * its version is the token, drawn from {@code prefix_seq} under the row lock on every grant.
     */
    static FairHandOffStatements table(String prefix) {
        String acquire =
                """
                WITH t AS (
                  INSERT INTO {L} AS l (lock_name, version, lock_mode, owner_id, expires_at, queued)
                  VALUES (:name, nextval('{S}'), 'X', :owner, now() + :lease * interval '1 millisecond', 0)
                  ON CONFLICT (lock_name) DO UPDATE
                  SET version = nextval('{S}'), lock_mode = 'X', owner_id = EXCLUDED.owner_id,
                      expires_at = EXCLUDED.expires_at
                  WHERE (l.lock_mode = '-' OR l.expires_at <= now()) AND (l.queued = 0 OR {none_ahead})
                  RETURNING l.version AS token, l.expires_at)""";
        String plainRelease = "UPDATE {L} SET lock_mode = '-', owner_id = '', expires_at = now()"
                + " WHERE lock_name = :name AND owner_id = :owner AND lock_mode = 'X' AND queued = 0";
        String release = "WITH " + LINE
                + """

                u AS (UPDATE {L} l SET version = CASE WHEN h.owner_id IS NULL THEN l.version ELSE nextval('{S}') END,
                        lock_mode = CASE WHEN h.owner_id IS NULL THEN '-' ELSE 'X' END,
                        owner_id = COALESCE(h.owner_id, ''),
                        expires_at = CASE WHEN h.owner_id IS NULL THEN now()
                                          ELSE now() + h.lease_ms * interval '1 millisecond' END,
                        queued = CASE WHEN h.owner_id IS NULL THEN 0 ELSE GREATEST(l.queued - 1, 0) END
                      FROM s LEFT JOIN h ON true
                      WHERE l.lock_name = :name AND l.owner_id = :owner AND l.lock_mode = 'X'
                        AND (h.owner_id IS NOT NULL
                             OR (l.queued = s.queued AND NOT EXISTS (SELECT 1 FROM c)))
                      RETURNING h.owner_id AS heir, l.version AS token, l.expires_at, h.channel),
                """
                + TAIL.replace("{freed}", "(SELECT count(*) FROM u WHERE u.heir IS NULL)");
        return new FairHandOffStatements(
                compile(acquire + ",\n" + JOIN, prefix),
                compile(release, prefix),
                compile(acquire + "\n" + GRANTED, prefix),
                compile(plainRelease, prefix),
                compile(LEAVE, prefix),
                compile(
                        POLL.replace("{token}", "l.version")
                                .replace("{free}", "(l.lock_mode = '-' OR l.expires_at <= now())"),
                        prefix),
                List.of(
                        "CREATE TABLE IF NOT EXISTS " + prefix + " (lock_name VARCHAR(512) PRIMARY KEY,"
                                + " version BIGINT NOT NULL, lock_mode CHAR(1) NOT NULL, owner_id VARCHAR(64) NOT NULL,"
                                + " expires_at TIMESTAMP WITH TIME ZONE NOT NULL, queued INT NOT NULL DEFAULT 0)",
                        waitersDdl(prefix),
                        "CREATE SEQUENCE IF NOT EXISTS " + prefix + "_seq"));
    }

    /**
     * The hand-off's tail: delete the heir's entry, NOTIFY its client with "owner token expiry-ms"
     * (delivered at commit), and report (held by the caller, handed, freed, notified).
     */
    private static final String TAIL =
            """
            x AS (DELETE FROM {W} w USING u WHERE u.heir IS NOT NULL AND w.lock_name = :name AND w.owner_id = u.heir),
            n AS (SELECT pg_notify(u.channel, u.heir || ' ' || u.token || ' ' || {ms_u_expires}) FROM u
                  WHERE u.heir IS NOT NULL AND u.channel IS NOT NULL)
            SELECT (SELECT count(*) FROM s), (SELECT count(*) FROM u WHERE u.heir IS NOT NULL), {freed},
                   (SELECT count(*) FROM n)""";

    /** Leaves the line; 0 rows deleted means a release handed it the lock first (release it then). */
    private static final String LEAVE = "DELETE FROM {W} WHERE lock_name = :name AND owner_id = :owner";

    /**
     * The waiter's fallback tick: refresh its entry and read the row: (is owner, token, expiry ms, free
     * or expired, entry still there). Always one row.
     */
    private static final String POLL =
            """
            WITH r AS (UPDATE {W} SET last_seen = now() WHERE lock_name = :name AND owner_id = :owner RETURNING 1)
            SELECT COALESCE(l.owner_id = :owner AND l.lock_mode = 'X', false), {token}, {ms_l_expires},
                   COALESCE({free}, true), (SELECT count(*) FROM r)
            FROM (SELECT 1) one LEFT JOIN {L} l ON l.lock_name = :name""";

    private static String waitersDdl(String prefix) {
        return "CREATE TABLE IF NOT EXISTS " + prefix + "_waiters (lock_name VARCHAR(512) NOT NULL,"
                + " owner_id VARCHAR(64) NOT NULL, place BIGINT NOT NULL,"
                + " last_seen TIMESTAMP WITH TIME ZONE NOT NULL, channel VARCHAR(63), lease_ms BIGINT NOT NULL,"
                + " PRIMARY KEY (lock_name, owner_id))";
    }

    static Sql compile(String template, String prefix) {
        return Sql.of(template.replace("{none_ahead}", NONE_AHEAD)
                .replace("{ms_expires}", MS.formatted("expires_at"))
                .replace("{ms_u_expires}", MS.formatted("u.expires_at"))
                .replace("{ms_l_expires}", MS.formatted("l.expires_at"))
                .replace("{window}", Long.toString(WINDOW_MILLIS))
                .replace("{W}", prefix + "_waiters")
                .replace("{L}", prefix)
                .replace("{S}", prefix + "_seq"));
    }
}
