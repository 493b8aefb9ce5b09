package dev.baton.jdbc.pinned;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.spi.LockRequest;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;

/**
 * Operators' view of the pessimistic strategy ({@link PessimisticStatements}). On MariaDB the
 * statement that draws the token also records the holder in a MEMORY table ({@code
 * <table>_pess_holders}, visible to others at once although the holder's transaction never commits)
 * and takes the marker lock {@code baton-pess#<connection id>}, which the release gives back: a row
 * counts while its connection holds the marker; a forced release ends the connection ({@link
 * MariaDbNamedLockHolders#endConnection}). On PostgreSQL, as follows. A holder's row lock lives in a transaction that never commits, so nothing it writes is visible to others;
 * what is visible is its session in {@code pg_stat_activity}. So, with no statement of its own:
 *
 * <ul>
 *   <li>The statements a holder runs on its pinned connection (the token draw, each renewal) start
 *       with a comment naming the grant: {@code /* baton-pess:<table>:<mode>:<owner>:<lease
 *       ms>:<name>:<holder> *}{@code /}, name and holder in URL-safe base64 (so nothing in them can
 *       end the comment), which {@code pg_stat_activity.query} shows while the session idles in its
 *       transaction. The token draw also sets the session's {@code application_name} to {@code baton
 *       <token>}; the rollback that releases the lock restores it.
 *   <li>List: the sessions of this database whose last statement carries such a comment for this
 *       table and which are idle in their (not failed) transaction or renewing; the expiry is when
 *       the idle transaction would be ended: its last change of state plus the lease. The comment
 *       must fit PostgreSQL's {@code track_activity_query_size} (1024 bytes by default): the holder
 *       description is cut to fit. Seeing other roles' sessions needs {@code pg_read_all_stats}.
 *   <li>Forced release: ends the holder's session ({@link PgAdvisoryHolders#endSession}), which
 *       rolls back its transaction and frees the row; the token comes from the sequence, and the
 *       broken holder's next renewal fails on its ended connection.
 * </ul>
 */
final class PessimisticHolders implements PinnedStatements.Holders {
    private static final String MARK = "/* baton-pess:";
    /** What the comment may take of PostgreSQL's default track_activity_query_size (1024 bytes). */
    private static final int COMMENT_BYTES = 880;

    private final JdbcProtocol.Context context;
    private final String rows;
    /** MariaDB: the holders table. */
    final String table;
    /**
     * PostgreSQL: the sessions whose last statement names a grant of this table (? = the LIKE pattern).
     * MariaDB: the holders whose connection still holds its marker lock: (name, mode, owner, token,
     * expiry in epoch millis, holder, connection id); the expiry is the lease less the idle time.
     */
    private final String list;

    PessimisticHolders(JdbcProtocol.Context context) {
        this.context = context;
        this.rows = context.names().locks() + "_pess";
        this.table = context.names().locks() + "_pess_holders";
        this.list = context.dialect() == Dialect.POSTGRESQL
                ? "SELECT pid, query, application_name,"
                        + " floor(date_part('epoch', state_change) * 1000)::bigint FROM pg_stat_activity"
                        + " WHERE datname = current_database() AND query LIKE ? AND application_name LIKE 'baton %'"
                        + " AND state IN ('idle in transaction', 'active') ORDER BY pid"
                : "SELECT h.lock_name, h.lock_mode, h.owner_id, h.fencing_token,"
                        + " FLOOR(UNIX_TIMESTAMP(NOW(6)) * 1000 + h.lease_ms - COALESCE(p.TIME_MS, 0)),"
                        + " h.holder, h.connection_id FROM " + table + " h"
                        + " LEFT JOIN information_schema.PROCESSLIST p ON p.ID = h.connection_id"
                        + " WHERE IS_USED_LOCK(CONCAT('baton-pess#', h.connection_id)) = h.connection_id"
                        + " ORDER BY h.lock_name, h.lock_mode, h.fencing_token";
    }

    /**
     * The comment that names a grant in {@code pg_stat_activity}; the holder is cut to fit. Empty on
     * MariaDB, which shows no idle session's last statement.
     */
    String comment(LockRequest request, long leaseMillis) {
        if (context.dialect() != Dialect.POSTGRESQL) {
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

    @Override
    public List<LockInfo> list(String prefix) {
        return SessionHolder.group(rows(prefix).stream()
                .filter(row -> row.name().startsWith(prefix))
                .sorted(Comparator.comparing(SessionHolder::name)
                        .thenComparing(SessionHolder::kind)
                        .thenComparingLong(row -> row.holder().fencingToken()))
                .toList());
    }

    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        List<SessionHolder> ended = new ArrayList<>();
        List<SessionHolder> hit = SessionHolder.of(rows(name), name, ownerId);
        if (hit.isEmpty() && ownerId == null && context.dialect() == Dialect.POSTGRESQL) {
            requireNoHiddenHolder(name);
        }
        try (JdbcSession db = context.connections().open(false)) {
            for (SessionHolder row : hit) {
                if (context.dialect() == Dialect.POSTGRESQL) {
                    PgAdvisoryHolders.endSession(db, context, name, row.session());
                } else {
                    MariaDbNamedLockHolders.endConnection(db, context, name, row.session());
                }
                ended.add(row);
            }
        } catch (SQLException e) {
            throw context.failure(name, "force release", e);
        }
        return SessionHolder.group(ended);
    }

    /**
     * PostgreSQL shows another role's last statement only to members of {@code pg_read_all_stats}: a
     * row that is locked while no visible session names it is held by a hidden holder, which this
     * user can neither see nor break. Probed with {@code FOR UPDATE NOWAIT} in a transaction rolled
     * back at once.
     */
    private void requireNoHiddenHolder(String name) {
        try (JdbcSession tx = context.connections().open(true)) {
            tx.first("SELECT 1 FROM " + rows + " WHERE lock_name = ? FOR UPDATE NOWAIT", rs -> Boolean.TRUE, name);
        } catch (SQLException e) {
            if (JdbcFailures.isConflict(e)) {
                throw SessionHolder.refused(
                        name,
                        context.backendName(),
                        "pg_terminate_backend of a session in pg_stat_activity",
                        "the row is locked by a session whose statements this user may not see; it needs"
                                + " membership in pg_read_all_stats (GRANT pg_read_all_stats TO <user>) to find it"
                                + " and the holder's role or pg_signal_backend to end it",
                        e);
            }
            throw context.failure(name, "force release", e);
        }
    }

    private List<SessionHolder> rows(String what) {
        if (context.dialect() != Dialect.POSTGRESQL) {
            return SessionHolder.read(context, what, list);
        }
        try (JdbcSession db = context.connections().open(false)) {
            return db.all(
                    list,
                    rs -> {
                        List<SessionHolder> rows = new ArrayList<>();
                        while (rs.next()) {
                            SessionHolder row = parse(rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(1));
                            if (row != null) {
                                rows.add(row);
                            }
                        }
                        return rows;
                    },
                    MARK + rows + ":%");
        } catch (SQLException e) {
            throw context.failure(what, "list", e);
        }
    }

    /** A session's comment and application name as a holder; null when they do not name one. */
    private SessionHolder parse(String query, String applicationName, long stateChangeMillis, long pid) {
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
            LockKind kind = "S".equals(parts[1]) ? LockKind.READ : LockKind.MUTEX;
            return new SessionHolder(decode(parts[4]), kind, holder, OptionalInt.empty(), pid);
        } catch (IllegalArgumentException e) {
            return null; // not one of ours after all, or cut short
        }
    }

    private static String encode(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String decode(String text) {
        return new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
    }
}
