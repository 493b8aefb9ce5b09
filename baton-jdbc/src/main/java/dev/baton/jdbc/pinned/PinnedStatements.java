package dev.baton.jdbc.pinned;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockUnavailableException;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSession;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/** A pinning strategy's statements; a forced release ends the holder's database session (docs/backends/jdbc.md). */
abstract class PinnedStatements extends PinningProtocol {
    /** MariaDB's errors of KILL: without the privilege; of a connection that ended meanwhile. */
    private static final int KILL_DENIED = 1095;

    private static final int NO_SUCH_THREAD = 1094;

    private static final Comparator<Holding> ORDER = Comparator.comparing(Holding::name)
            .thenComparing(Holding::kind)
            .thenComparingLong(row -> row.holder().fencingToken());

    /** One holder as operators see it; {@code session} is PostgreSQL's backend pid, MariaDB's connection id. */
    record Holding(String name, LockKind kind, Holder holder, OptionalInt waiters, long session) {}

    PinnedStatements(JdbcProtocol.Context context) {
        super(context);
    }

    /** Every holder the strategy can see now ({@code what} names the lock or prefix in failures). */
    abstract List<Holding> holders(String what);

    /** Runs after a forced release ended a holder's session. */
    void ended(JdbcSession db, String name, Holding holding) throws SQLException {}

    /** Runs when a forced release of every holder of {@code name} found none. */
    void noneFound(String name) {}

    @Override
    public final List<LockInfo> list(String prefix) {
        return group(holders(prefix).stream()
                .filter(row -> row.name().startsWith(prefix))
                .toList());
    }

    @Override
    public final List<LockInfo> forceRelease(String name, String ownerId) {
        List<Holding> hit = holders(name).stream()
                .filter(row -> row.name().equals(name)
                        && (ownerId == null || row.holder().ownerId().equals(ownerId)))
                .toList();
        if (hit.isEmpty() && ownerId == null) {
            noneFound(name);
        }
        try (JdbcSession db = context.connections().open(false)) {
            for (Holding row : hit) {
                endSession(db, name, row.session());
                ended(db, name, row);
            }
        } catch (SQLException e) {
            throw context.failure(name, "force release", e);
        }
        return group(hit);
    }

    private static List<LockInfo> group(List<Holding> rows) {
        Map<List<Object>, List<Holding>> byLock = rows.stream()
                .sorted(ORDER)
                .collect(Collectors.groupingBy(
                        row -> List.of(row.name(), row.kind()), LinkedHashMap::new, Collectors.toList()));
        return byLock.values().stream()
                .map(holders -> LockInfo.of(
                                holders.get(0).name(),
                                holders.get(0).kind(),
                                holders.stream().map(Holding::holder).toList())
                        .withWaiters(holders.get(0).waiters()))
                .toList();
    }

    /** The holders {@code sql} returns, each row mapped by {@code row} (null: not one of ours). */
    final List<Holding> read(String what, String sql, JdbcSession.Rows<Holding> row, Object... params) {
        try (JdbcSession db = context.connections().open(false)) {
            return db.all(
                    sql,
                    rs -> {
                        List<Holding> rows = new ArrayList<>();
                        while (rs.next()) {
                            Holding holding = row.read(rs);
                            if (holding != null) {
                                rows.add(holding);
                            }
                        }
                        return rows;
                    },
                    params);
        } catch (SQLException e) {
            throw context.failure(what, "list", e);
        }
    }

    /** A holder from the columns (name, S or X, owner, token, expiry epoch millis, holder, session [, waiters]). */
    static Holding holding(ResultSet rs) throws SQLException {
        Holder holder = Holder.of(
                rs.getString(3),
                Objects.toString(rs.getString(6), ""),
                rs.getLong(4),
                Instant.ofEpochMilli(rs.getLong(5)));
        OptionalInt waiters =
                rs.getMetaData().getColumnCount() > 7 ? OptionalInt.of(rs.getInt(8)) : OptionalInt.empty();
        return new Holding(rs.getString(1), kind(rs.getString(2)), holder, waiters, rs.getLong(7));
    }

    static void setWaitTimeout(JdbcSession db, Object seconds) throws SQLException {
        // No query timeout: sent as max_statement_time, its expiry would make HikariCP close the connection.
        try (Statement st = db.connection.createStatement()) {
            st.execute("SET SESSION wait_timeout = " + seconds);
        }
    }

    /** MariaDB: the holders in {@code table} whose connection holds {@code lock}, expiring a lease after going idle. */
    static String mariaDbHolders(String table, String mode, String lock) {
        return "SELECT h.lock_name, " + mode + ", h.owner_id, h.fencing_token,"
                + " FLOOR(UNIX_TIMESTAMP(NOW(6)) * 1000 + h.lease_ms - COALESCE(p.TIME_MS, 0)), h.holder,"
                + " h.connection_id FROM " + table + " h LEFT JOIN information_schema.PROCESSLIST p"
                + " ON p.ID = h.connection_id WHERE IS_USED_LOCK(" + lock + ") = h.connection_id";
    }

    static LockKind kind(String mode) {
        return "S".equals(mode) ? LockKind.READ : LockKind.MUTEX;
    }

    /** Ends a holder's session and waits, within the operation timeout, until it has (and its locks). */
    private void endSession(JdbcSession db, String name, long session) throws SQLException {
        if (context.dialect() == Dialect.POSTGRESQL) {
            terminateBackend(db, name, session);
            return;
        }
        try {
            db.update("KILL CONNECTION " + session);
        } catch (SQLException e) {
            if (e.getErrorCode() == KILL_DENIED) {
                throw refused(
                        name,
                        "KILL CONNECTION " + session,
                        "the user needs the CONNECTION ADMIN privilege (or SUPER) to end another user's"
                                + " connection (GRANT CONNECTION ADMIN ON *.* TO <user>)",
                        e);
            }
            if (e.getErrorCode() != NO_SUCH_THREAD) {
                throw e;
            }
        }
        // Another user's connection is out of sight without the PROCESS privilege: then ended() decides.
        awaitNone(
                db,
                name,
                session,
                "did not end within the operation timeout after KILL CONNECTION",
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?",
                session);
    }

    private void terminateBackend(JdbcSession db, String name, long pid) throws SQLException {
        long waitMillis = context.connections().operationTimeout.toMillis();
        boolean gone;
        try {
            gone = db.first("SELECT pg_terminate_backend(?, ?)", rs -> rs.getBoolean(1), (int) pid, waitMillis)
                    .orElse(false);
        } catch (SQLException e) {
            if (JdbcFailures.isPermission(e)) {
                throw refused(
                        name,
                        "pg_terminate_backend(" + pid + ")",
                        "the user needs the holder's role or membership in pg_signal_backend"
                                + " (GRANT pg_signal_backend TO <user>)",
                        e);
            }
            throw e;
        }
        if (!gone) {
            throw new LockUnavailableException("Baton lock '" + name + "' on " + context.backendName()
                    + ": the holder's session (pid " + pid + ") did not end within " + waitMillis
                    + " ms of pg_terminate_backend; call the forced release again");
        }
    }

    final void awaitNone(
            JdbcSession db, String name, long connection, String failing, String countSql, Object... params)
            throws SQLException {
        long deadline =
                System.nanoTime() + context.connections().operationTimeout.toNanos();
        while (db.first(countSql, rs -> rs.getLong(1), params).orElse(0L) > 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new LockUnavailableException("Baton lock '" + name + "' on " + context.backendName()
                        + ": the holder's connection " + connection + " " + failing
                        + "; call the forced release again");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    final LockUnavailableException refused(String name, String statement, String privilege, SQLException e) {
        return new LockUnavailableException(
                "Baton lock '" + name + "' on " + context.backendName() + ": a forced release ends the holder's"
                        + " database session (" + statement + "), which the database refused: " + privilege + " ("
                        + e.getMessage() + ")",
                e);
    }
}
