package dev.baton.jdbc.row;

import dev.baton.LockMode;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Fair hand-off on H2 and MariaDB ({@link HandOff}), the SQL in {@link RowHandOffSql}:
 *
 * <ul>
 *   <li>Plain acquire, as the strategy's barging acquire (table: insert then draw the token, or take
 *       an expired row over; optimistic: read, then insert or CAS), the takeover also requiring that
 *       nobody is counted in line, or nobody live is ahead.
 *   <li>Join, one transaction: count the busy lock's line up (which locks its row), then write the
 *       entry; if the lock was free after all, the plain acquire.
 *   <li>Plain release, one statement: frees the lock when nobody is counted in line.
 *   <li>Hand-off release, one transaction: lock the row, pick the live head of the line (locked),
 *       write it as the owner with a new token and its lease, delete its entry; or free the lock.
 *       {@link HandOff} wakes the heir after the commit if it waits in this JVM.
 *   <li>Tick: one read of the lock row by owner id; every {@value JdbcLine#REFRESH_MILLIS} ms also
 *       the entry's refresh and the purge of dead entries.
 * </ul>
 */
final class RowHandOffStatements implements HandOffStatements {
    private final RowHandOffSql sql;
    private final JdbcProtocol.Context context;
    private final JdbcConnections connections;
    /** MariaDB (optimistic): the hand-off release in one round trip where multi-statements are on. */
    private final MariaDbHandOn oneTrip;

    RowHandOffStatements(RowHandOffSql sql, JdbcProtocol.Context context) {
        this.sql = sql;
        this.context = context;
        this.connections = context.connections();
        this.oneTrip =
                context.dialect() == Dialect.MARIADB && !sql.table ? new MariaDbHandOn(sql.locks, sql.waiters) : null;
    }

    @Override
    public boolean notifiesHeir() {
        return false;
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, boolean contended) throws SQLException {
        if (sql.table && contended) {
            // Likely busy: one read in auto-commit mode instead of a transaction that finds it so.
            try (JdbcSession db = connections.open(false)) {
                if (db.first(sql.busy, rs -> Boolean.TRUE, request.name()).isPresent()) {
                    return Optional.empty();
                }
            }
        }
        return sql.table ? acquireRow(request) : acquireVersion(request);
    }

    /** Table strategy: insert the row and draw its token under its lock, or take an expired one over. */
    private Optional<Grant> acquireRow(LockRequest request) throws SQLException {
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        Object holder = request.holder();
        try (JdbcSession tx = connections.open(true)) {
            Optional<Grant> grant;
            if (tx.insertIfAbsent(sql.insert, JdbcProtocol.params(request.name(), request.ownerId(), lease, holder))) {
                grant = written(tx, sql.drawToken, request, request.name());
            } else {
                grant = written(
                        tx,
                        sql.takeOver,
                        request,
                        JdbcProtocol.params(
                                request.ownerId(),
                                lease,
                                holder,
                                request.name(),
                                WaiterStatements.guardParams(request.name(), request.ownerId())));
                if (grant.isPresent()) {
                    tx.update(sql.deleteReaders, request.name());
                }
            }
            if (grant.isPresent()) {
                tx.commit();
            }
            return grant;
        }
    }

    private Optional<Grant> written(JdbcSession tx, String statement, LockRequest request, Object... params)
            throws SQLException {
        return tx.first(
                statement,
                rs -> Grant.builder(request.name(), request.ownerId(), LockMode.EXCLUSIVE)
                        .fencingToken(rs.getLong(1))
                        .expiresAt(context.dialect().instant(rs, 2))
                        .build(),
                params);
    }

    /** Optimistic strategy: read the row, then insert it or CAS a free one (version read, nobody ahead). */
    private Optional<Grant> acquireVersion(LockRequest request) throws SQLException {
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        Object holder = request.holder();
        try (JdbcSession db = connections.open(false)) {
            Optional<long[]> row = db.first(
                    sql.readRow,
                    rs -> new long[] {
                        rs.getLong(1), rs.getString(2).charAt(0) == '-' || rs.getInt(3) == 1 ? 1 : 0, rs.getLong(4)
                    },
                    request.name());
            long token;
            if (row.isEmpty()) {
                if (!db.insertIfAbsent(
                        sql.insert, JdbcProtocol.params(request.name(), request.ownerId(), lease, holder))) {
                    return Optional.empty(); // another client inserted it first
                }
                token = 1;
            } else {
                long version = row.get()[0];
                // Nobody counted in line: the CAS without the guard, whose subquery MariaDB would run
                // anyway (it evaluates a constant subquery while planning); a join since the read
                // makes it fail (queued = 0).
                boolean nobodyQueued = row.get()[2] == 0;
                Object[] params = JdbcProtocol.params(
                        request.ownerId(),
                        lease,
                        holder,
                        request.name(),
                        version,
                        nobodyQueued ? new Object[0] : WaiterStatements.guardParams(request.name(), request.ownerId()));
                if (row.get()[1] == 0 || db.update(nobodyQueued ? sql.casFree : sql.takeOver, params) != 1) {
                    return Optional.empty();
                }
                token = version + 1;
            }
            // The expiry is computed here because MariaDB cannot return what an UPDATE wrote.
            return Optional.of(Grant.builder(request.name(), request.ownerId(), LockMode.EXCLUSIVE)
                    .fencingToken(token)
                    .expiresAt(JdbcTime.expiry(lease))
                    .build());
        }
    }

    @Override
    public HandOff.Joined join(LockRequest request, String channel) throws SQLException {
        try (JdbcSession tx = connections.open(true)) {
            if (tx.update(sql.join, request.name(), request.ownerId()) == 1) {
                tx.update(
                        sql.enter,
                        JdbcProtocol.params(
                                request.name(),
                                request.ownerId(),
                                JdbcTime.leaseMillis(request.leaseTime()),
                                request.holder()));
                tx.commit();
                return HandOff.Joined.QUEUED;
            }
        }
        // Free (or expired) after all: the plain acquire, which a live head ahead refuses.
        return acquire(request, false).map(HandOff.Joined::granted).orElse(HandOff.Joined.RACED);
    }

    @Override
    public boolean release(String name, String owner) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.update(sql.release, name, owner) == 1;
        }
    }

    /** The lock row's line count and version, as locked by the release. */
    private record Locked(long queued, long version) {}

    /** The head of the line as the release read it. */
    private record Head(String owner, long leaseMillis, String holder) {}

    @Override
    public HandOff.HandedOn handOn(String name, String owner) throws SQLException {
        HandOff.HandedOn done = oneTrip == null ? null : oneTrip.run(connections, name, owner);
        if (done != null) {
            return done;
        }
        try (JdbcSession tx = connections.open(true)) {
            Optional<Locked> locked =
                    tx.first(sql.lockRow, rs -> new Locked(rs.getLong(1), rs.getLong(2)), name, owner);
            if (locked.isEmpty()) {
                return HandOff.HandedOn.NOT_HELD;
            }
            Optional<Head> head = locked.get().queued() <= 0
                    ? Optional.empty()
                    : tx.first(
                            sql.head,
                            rs -> new Head(rs.getString(1), rs.getLong(2), rs.getString(3)),
                            name,
                            owner,
                            -JdbcLine.WINDOW_MILLIS);
            if (head.isEmpty()) {
                tx.update(sql.free, name, owner);
                tx.commit();
                return HandOff.HandedOn.FREED;
            }
            Head h = head.get();
            Object[] params = JdbcProtocol.params(h.owner(), h.leaseMillis(), h.holder(), name, owner);
            Grant heir;
            if (sql.handOnReturns) {
                heir = tx.first(
                                sql.handOn,
                                rs -> Grant.builder(name, h.owner(), LockMode.EXCLUSIVE)
                                        .fencingToken(rs.getLong(1))
                                        .expiresAt(context.dialect().instant(rs, 2))
                                        .build(),
                                params)
                        .orElseThrow(() -> new SQLException("the locked row was not handed on", "40001"));
            } else {
                if (tx.update(sql.handOn, params) != 1) {
                    throw new SQLException("the locked row was not handed on", "40001");
                }
                heir = Grant.builder(name, h.owner(), LockMode.EXCLUSIVE)
                        .fencingToken(locked.get().version() + 1)
                        .expiresAt(JdbcTime.expiry(h.leaseMillis()))
                        .build();
            }
            tx.update(sql.leave, name, h.owner());
            tx.commit();
            return new HandOff.HandedOn(true, true, false, heir);
        }
    }

    @Override
    public HandOff.Tick tick(LockRequest request, boolean refresh) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            if (refresh) {
                db.update(sql.refresh, request.name(), request.ownerId());
                db.update(sql.purge, request.name(), -JdbcLine.WINDOW_MILLIS);
            }
            return db.first(sql.read, rs -> tick(request, rs), request.ownerId(), request.name())
                    .orElse(new HandOff.Tick(null, true, false));
        }
    }

    private HandOff.Tick tick(LockRequest request, java.sql.ResultSet rs) throws SQLException {
        boolean live = rs.getInt(3) == 1;
        boolean exclusive = "X".equals(rs.getString(2));
        boolean owned = live && exclusive && request.ownerId().equals(rs.getString(1));
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
                return db.update(sql.leave, name, owner) == 1;
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
