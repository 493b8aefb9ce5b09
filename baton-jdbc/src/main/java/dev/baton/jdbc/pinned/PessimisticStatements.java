package dev.baton.jdbc.pinned;

import dev.baton.Holder;
import dev.baton.LockMode;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSchema;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The {@code pessimistic} strategy: a row locked in a transaction held open for the lease. Its token comes
 * from a sequence, which is not transactional, so a rolled-back draw is never handed out again.
 */
final class PessimisticStatements extends PinnedStatements {
    /** MariaDB: the named lock that marks a connection's holder row live, given back by release. */
    private static final String MARKER = "CONCAT('baton-pess#', CONNECTION_ID())";

    private static final String MARK = "/* baton-pess:";
    /** What the comment may take of PostgreSQL's default track_activity_query_size (1024 bytes). */
    private static final int COMMENT_BYTES = 880;

    private final Dialect dialect;
    private final String rows;
    private final Map<String, String> probes = new LinkedHashMap<>();
    private final String insertRow;
    /** Draws the token and bounds the idle transaction (PostgreSQL) or records the holder (MariaDB). */
    private final String drawToken;

    private final String list;

    PessimisticStatements(JdbcProtocol.Context context) {
        super(context);
        this.dialect = context.dialect();
        this.rows = context.names().locks() + "_pess";
        String sequence = rows + "_seq";
        String holders = rows + "_holders";
        probes.put(rows, JdbcSchema.probe(rows));
        probes.put(sequence, JdbcSchema.probe(sequence));
        if (dialect == Dialect.POSTGRESQL) {
            insertRow = "INSERT INTO " + rows + " (lock_name) VALUES (?) ON CONFLICT (lock_name) DO NOTHING";
            drawToken = "SELECT t.v, set_config('idle_in_transaction_session_timeout', ?, false),"
                    + " set_config('application_name', 'baton ' || t.v, false) FROM (SELECT nextval('" + sequence
                    + "') AS v) t";
            list = "SELECT pid, query, application_name,"
                    + " floor(date_part('epoch', state_change) * 1000)::bigint FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND query LIKE ? AND application_name LIKE 'baton %'"
                    + " AND state IN ('idle in transaction', 'active')";
        } else {
            probes.put(holders, JdbcSchema.probe(holders));
            insertRow = "INSERT INTO " + rows + " (lock_name) VALUES (?)";
            drawToken = "REPLACE INTO " + holders + " (connection_id, lock_name, lock_mode, owner_id, holder,"
                    + " lease_ms, fencing_token, marked) VALUES (CONNECTION_ID(), ?, ?, ?, ?, ?, NEXT VALUE FOR "
                    + sequence + ", GET_LOCK(" + MARKER + ", 0)) RETURNING fencing_token";
            list = mariaDbHolders(holders, "h.lock_mode", "CONCAT('baton-pess#', h.connection_id)");
        }
    }

    @Override
    public Map<String, String> probes() {
        return probes;
    }

    @Override
    boolean transaction() {
        return true;
    }

    /** Locks the row (inserting it first if the name is new), then draws the token: empty if busy. */
    @Override
    Optional<Taken> take(JdbcSession db, LockRequest request, long waitMillis) throws SQLException {
        for (boolean insertIfMissing = true; ; insertIfMissing = false) {
            boolean found;
            try {
                found = lockRow(db, request, waitMillis);
            } catch (SQLException e) {
                if (JdbcFailures.isConflict(e)) {
                    db.connection.rollback(); // busy, or the wait ran out
                    return Optional.empty();
                }
                if (dialect == Dialect.MARIADB && waitMillis > 0 && JdbcFailures.isTimeout(e)) {
                    // max_statement_time ended the wait: nothing is held, and HikariCP discards the connection.
                    return Optional.empty();
                }
                throw e;
            }
            if (found) {
                return Optional.of(drawToken(db, request));
            }
            db.connection.rollback();
            if (!insertIfMissing) {
                return Optional.empty();
            }
            db.insertIfAbsent(insertRow, request.name());
            db.commit();
        }
    }

    /** Whether the row exists and is now locked; a busy row fails with a conflict. */
    private boolean lockRow(JdbcSession db, LockRequest request, long waitMillis) throws SQLException {
        boolean shared = request.mode() == LockMode.SHARED;
        String select = "SELECT 1 FROM " + rows + " WHERE lock_name = ? ";
        String lock = shared ? (dialect == Dialect.POSTGRESQL ? "FOR SHARE" : "LOCK IN SHARE MODE") : "FOR UPDATE";
        if (waitMillis == 0) {
            return db.first(select + lock + " NOWAIT", rs -> true, request.name())
                    .isPresent();
        }
        String sql;
        if (dialect == Dialect.POSTGRESQL) {
            db.first("SELECT set_config('lock_timeout', ?, true)", rs -> true, String.valueOf(waitMillis));
            sql = select + lock;
        } else if (waitMillis % 1000 == 0) {
            // Whole seconds (an unlimited wait's slice): innodb_lock_wait_timeout keeps the connection usable.
            sql = "SET STATEMENT innodb_lock_wait_timeout = " + waitMillis / 1000 + " FOR " + select + lock;
        } else {
            // max_statement_time has microsecond resolution, innodb_lock_wait_timeout only whole seconds.
            sql = String.format(
                    Locale.ROOT,
                    "SET STATEMENT max_statement_time = %.3f, innodb_lock_wait_timeout = %d FOR %s%s",
                    waitMillis / 1000.0,
                    (waitMillis + 999) / 1000 + 1,
                    select,
                    lock);
        }
        return db.firstWaiting(sql, rs -> true, request.name()).isPresent();
    }

    private Taken drawToken(JdbcSession db, LockRequest request) throws SQLException {
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        String comment = comment(request, lease);
        long token;
        if (dialect == Dialect.POSTGRESQL) {
            token = db.first(comment + drawToken, rs -> rs.getLong(1), String.valueOf(JdbcTime.idleMillis(lease)))
                    .orElseThrow();
        } else {
            String mode = request.mode() == LockMode.SHARED ? "S" : "X";
            token = db.first(
                            drawToken,
                            rs -> rs.getLong(1),
                            request.name(),
                            mode,
                            request.ownerId(),
                            request.holder(),
                            lease)
                    .orElseThrow();
            setWaitTimeout(db, JdbcTime.waitTimeoutSeconds(lease));
        }
        return new Taken(token, JdbcTime.expiry(lease), comment);
    }

    @Override
    Optional<Instant> renewOn(JdbcSession db, Grant grant, Object state, long leaseMillis) throws SQLException {
        if (dialect == Dialect.POSTGRESQL) {
            db.first(
                    state + "SELECT set_config('idle_in_transaction_session_timeout', ?, false)",
                    rs -> true,
                    String.valueOf(JdbcTime.idleMillis(leaseMillis)));
        } else {
            setWaitTimeout(db, JdbcTime.waitTimeoutSeconds(leaseMillis));
        }
        return Optional.of(JdbcTime.expiry(leaseMillis));
    }

    /** Rolls back, which frees the row; MariaDB gives back the marker and restores its idle bound. */
    @Override
    boolean releaseOn(JdbcSession db, Grant grant, Object state) throws SQLException {
        db.connection.rollback();
        if (dialect == Dialect.MARIADB) {
            setWaitTimeout(db, "@@GLOBAL.wait_timeout + 0 * COALESCE(RELEASE_LOCK(" + MARKER + "), 0)");
        }
        return true;
    }

    /**
     * PostgreSQL: {@code /* baton-pess:<table>:<mode>:<owner>:<lease ms>:<name>:<holder> *}{@code /}, name
     * and holder in base64 so that nothing in them ends it; empty on MariaDB.
     */
    private String comment(LockRequest request, long leaseMillis) {
        if (dialect != Dialect.POSTGRESQL) {
            return "";
        }
        String start = MARK + rows + ":" + (request.mode() == LockMode.SHARED ? "S" : "X") + ":" + request.ownerId()
                + ":" + leaseMillis + ":" + encode(request.name()) + ":";
        String holder = request.holder();
        while (!holder.isEmpty() && (start + encode(holder)).length() > COMMENT_BYTES) {
            holder = holder.substring(0, holder.length() - 1);
        }
        return start + encode(holder) + " */ ";
    }

    /** PostgreSQL: the sessions whose last statement names a grant of this table, expiring a lease after it. */
    @Override
    List<Holding> holders(String what) {
        if (dialect != Dialect.POSTGRESQL) {
            return read(what, list, PinnedStatements::holding);
        }
        return read(
                what,
                list,
                rs -> parse(rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(1)),
                MARK + rows + ":%");
    }

    /** A session's comment and application name as a holder; null when they do not name one. */
    private Holding parse(String query, String applicationName, long stateChangeMillis, long pid) {
        int end = query.indexOf(" */");
        String[] parts =
                end < 0 ? new String[0] : query.substring(MARK.length(), end).split(":", -1);
        if (parts.length != 6 || !parts[0].equals(rows)) {
            return null;
        }
        try {
            long token =
                    Long.parseLong(applicationName.substring("baton ".length()).trim());
            Holder holder = Holder.of(
                    parts[2],
                    decode(parts[5]),
                    token,
                    Instant.ofEpochMilli(stateChangeMillis + Long.parseLong(parts[3])));
            return new Holding(decode(parts[4]), kind(parts[1]), holder, OptionalInt.empty(), pid);
        } catch (IllegalArgumentException e) {
            return null; // not one of ours after all, or cut short
        }
    }

    /** PostgreSQL hides other roles' statements without pg_read_all_stats: a locked row's holder may be unseen. */
    @Override
    void noneFound(String name) {
        if (dialect != Dialect.POSTGRESQL) {
            return;
        }
        try (JdbcSession tx = context.connections().open(true)) {
            tx.first("SELECT 1 FROM " + rows + " WHERE lock_name = ? FOR UPDATE NOWAIT", rs -> Boolean.TRUE, name);
        } catch (SQLException e) {
            if (JdbcFailures.isConflict(e)) {
                throw refused(
                        name,
                        "pg_terminate_backend of a session in pg_stat_activity",
                        "the row is locked by a session whose statements this user may not see; it needs"
                                + " membership in pg_read_all_stats (GRANT pg_read_all_stats TO <user>) to find it"
                                + " and the holder's role or pg_signal_backend to end it",
                        e);
            }
            throw context.failure(name, "force release", e);
        }
    }

    private static String encode(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String decode(String text) {
        return new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
    }
}
