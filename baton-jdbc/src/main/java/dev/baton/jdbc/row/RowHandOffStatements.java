package dev.baton.jdbc.row;

import dev.baton.LockMode;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.jdbc.internal.SqlTemplate;
import dev.baton.jdbc.internal.TableNames;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Fair {@link HandOff} on H2 and MariaDB in short transactions. Joins and releases lock the lock row,
 * then the waiters' rows, so a release never misses a join that committed before it and nothing
 * deadlocks; the head is read locked, so a waiter leaving at once deleted its entry first or finds it gone.
 */
final class RowHandOffStatements implements HandOffStatements {
    private final RowProtocol rows;
    private final JdbcProtocol.Context context;
    private final JdbcConnections connections;
    /** MariaDB: the hand-off release in one round trip where multi-statements are on; null elsewhere. */
    private final MariaDbHandOn oneTrip;

    /** ? = name, owner: counts a busy lock's line up by one (0 rows: free again, or the caller's). */
    private final String join;
    /** ? = name, owner, lease, holder: writes the entry, or refreshes it and keeps its place. */
    private final String enter;
    /** ? = name, owner: the plain release; 0 rows when someone is counted in line, or not held. */
    private final String release;
    /**
     * ? = name, owner: locks the caller's lock row; (queued, the heir's token), or no row: not held. The
     * hand-on requires the grant the row showed, so the token exceeds every earlier one of the name.
     */
    private final String lockRow;
    /** ? = name, owner, minus the window: the live head of the line, locked; (owner, lease ms, holder). */
    private final String head;
    /** ? = token, heir, lease, holder, name, owner: the lock row handed to the heir. */
    private final String handOn;
    /** ? = name, owner: frees the lock (no live head). */
    private final String free;
    /** ? = owner, name: (owner, mode, live 1/0, token, expires_at, entries of the owner); no row: free. */
    private final String read;

    private final String refresh;
    /** ? = name, minus the window: deletes entries whose waiters stopped refreshing. */
    private final String purge;

    RowHandOffStatements(RowProtocol rows) {
        this.rows = rows;
        this.context = rows.context;
        this.connections = context.connections();
        Dialect dialect = context.dialect();
        TableNames names = context.names();
        this.oneTrip = dialect == Dialect.MARIADB ? new MariaDbHandOn(names) : null;
        SqlTemplate sql = new SqlTemplate(dialect)
                .with("{L}", names.locks())
                .with("{W}", names.waiters())
                .with("{next_token}", dialect.nextToken(names.sequence()));
        join = sql.sql("UPDATE {L} SET queued = queued + 1"
                + " WHERE lock_name = ? AND owner_id <> ? AND lock_mode <> '-' AND expires_at > {now}");
        enter = sql.sql(
                dialect == Dialect.H2
                        ? "MERGE INTO {W} t USING (VALUES (CAST(? AS VARCHAR(512)), CAST(? AS VARCHAR(64)),"
                                + " CAST(? AS BIGINT), CAST(? AS VARCHAR(120)))) s(lock_name, owner_id, lease_ms, holder)"
                                + " ON t.lock_name = s.lock_name AND t.owner_id = s.owner_id"
                                + " WHEN MATCHED THEN UPDATE SET last_seen = {now}"
                                + " WHEN NOT MATCHED THEN INSERT (lock_name, owner_id, place, last_seen, lease_ms, holder)"
                                + " VALUES (s.lock_name, s.owner_id, {now}, {now}, s.lease_ms, s.holder)"
                        : "INSERT INTO {W} (lock_name, owner_id, place, last_seen, lease_ms, holder)"
                                + " VALUES (?, ?, {now}, {now}, ?, ?) ON DUPLICATE KEY UPDATE last_seen = {now}");
        String freeing = "UPDATE {L} SET lock_mode = '-', owner_id = '', expires_at = {now}, queued = 0"
                + " WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X'";
        free = sql.sql(freeing);
        release = sql.sql(freeing + " AND queued = 0");
        lockRow = sql.sql("SELECT queued, {next_token} FROM {L}"
                + " WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X' FOR UPDATE");
        head = sql.sql("SELECT owner_id, lease_ms, holder FROM {W}"
                + " WHERE lock_name = ? AND owner_id <> ? AND lease_ms IS NOT NULL AND last_seen > {now+lease}"
                + " ORDER BY place, owner_id LIMIT 1 FOR UPDATE");
        handOn = sql.sql(
                "UPDATE {L} SET version = ?, owner_id = ?, expires_at = {now+lease},"
                        + " queued = GREATEST(queued - 1, 0), holder = ? WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X'");
        read = sql.sql("SELECT l.owner_id, l.lock_mode, CASE WHEN l.expires_at > {now} THEN 1 ELSE 0 END, l.version,"
                + " l.expires_at, (SELECT COUNT(*) FROM {W} w WHERE w.lock_name = l.lock_name AND w.owner_id = ?)"
                + " FROM {L} l WHERE l.lock_name = ?");
        refresh = sql.sql("UPDATE {W} SET last_seen = {now} WHERE lock_name = ? AND owner_id = ?");
        purge = sql.sql("DELETE FROM {W} WHERE lock_name = ? AND last_seen <= {now+lease}");
    }

    @Override
    public boolean notifiesHeir() {
        return false;
    }

    @Override
    public Optional<Grant> acquire(LockRequest request) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return rows.acquire(db, request);
        }
    }

    @Override
    public HandOff.Joined join(LockRequest request, String channel) throws SQLException {
        try (JdbcSession tx = connections.open(true)) {
            if (tx.update(join, request.name(), request.ownerId()) == 1) {
                long lease = JdbcTime.leaseMillis(request.leaseTime());
                tx.update(enter, request.name(), request.ownerId(), lease, request.holder());
                tx.commit();
                return HandOff.Joined.QUEUED;
            }
        }
        // Free (or expired) after all: the plain acquire, which a live head ahead refuses.
        return acquire(request).map(HandOff.Joined::granted).orElse(HandOff.Joined.RACED);
    }

    @Override
    public boolean release(String name, String owner) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.update(release, name, owner) == 1;
        }
    }

    private record Locked(long queued, long token) {}

    private record Head(String owner, long leaseMillis, String holder) {}

    @Override
    public HandOff.HandedOn handOn(String name, String owner) throws SQLException {
        HandOff.HandedOn done = oneTrip == null ? null : oneTrip.run(connections, name, owner);
        if (done != null) {
            return done;
        }
        try (JdbcSession tx = connections.open(true)) {
            Optional<Locked> locked = tx.first(lockRow, rs -> new Locked(rs.getLong(1), rs.getLong(2)), name, owner);
            if (locked.isEmpty()) {
                return HandOff.HandedOn.NOT_HELD;
            }
            Optional<Head> head = locked.get().queued() <= 0
                    ? Optional.empty()
                    : tx.first(
                            this.head,
                            rs -> new Head(rs.getString(1), rs.getLong(2), rs.getString(3)),
                            name,
                            owner,
                            -JdbcLine.WINDOW_MILLIS);
            if (head.isEmpty()) {
                tx.update(free, name, owner);
                tx.commit();
                return HandOff.HandedOn.FREED;
            }
            Head h = head.get();
            long token = locked.get().token();
            if (tx.update(handOn, token, h.owner(), h.leaseMillis(), h.holder(), name, owner) != 1) {
                throw new SQLException("the locked row was not handed on", "40001");
            }
            tx.update(rows.sql.waiters.leave, name, h.owner());
            tx.commit();
            Grant heir = HandOff.grant(name, h.owner(), token, JdbcTime.expiry(h.leaseMillis()));
            return new HandOff.HandedOn(true, true, false, heir);
        }
    }

    @Override
    public HandOff.Tick tick(LockRequest request, boolean refresh) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            if (refresh) {
                db.update(this.refresh, request.name(), request.ownerId());
                db.update(purge, request.name(), -JdbcLine.WINDOW_MILLIS);
            }
            return db.first(read, rs -> tick(request, rs), request.ownerId(), request.name())
                    .orElse(new HandOff.Tick(null, true, false));
        }
    }

    private HandOff.Tick tick(LockRequest request, ResultSet rs) throws SQLException {
        boolean live = rs.getInt(3) == 1;
        boolean owned = live && "X".equals(rs.getString(2)) && request.ownerId().equals(rs.getString(1));
        Grant grant = owned
                ? Grant.builder(request.name(), request.ownerId(), LockMode.EXCLUSIVE)
                        .fencingToken(rs.getLong(4))
                        .expiresAt(context.dialect().instant(rs, 5))
                        .build()
                : null;
        boolean free = !live || "-".equals(rs.getString(2));
        return new HandOff.Tick(grant, free, rs.getLong(6) > 0);
    }

    @Override
    public boolean leave(String name, String owner) throws SQLException {
        for (int run = 1; ; run++) {
            try (JdbcSession db = connections.open(false)) {
                return db.update(rows.sql.waiters.leave, name, owner) == 1;
            } catch (SQLException e) {
                // H2 may answer a DELETE that waited for a release's lock on the entry with a conflict;
                // run again, it then finds the entry gone.
                if (!JdbcFailures.isConflict(e) || run >= 3) {
                    throw e;
                }
            }
        }
    }
}
