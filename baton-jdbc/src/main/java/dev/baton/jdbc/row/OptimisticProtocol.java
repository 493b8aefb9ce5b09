package dev.baton.jdbc.row;

import dev.baton.LockInfo;
import dev.baton.LockMode;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.jdbc.internal.LockRows;
import dev.baton.jdbc.internal.PgNotifications;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code optimistic} strategy: one row per lock name in {@code <table>_opt} that is never
 * deleted, with a version that every change of holder increments. The version is the fencing token.
 *
 * <p>Protocol (expiries on the database's clock; "CAS" is an UPDATE guarded by {@code version = ?}
 * that increments the version, so of two writers that read the same version exactly one wins):
 *
 * <ul>
 *   <li>Exclusive acquire, auto-commit: read (version, mode, expired). No row: insert it at version
 *       1 (an existing key inserts nothing). Free ('-') or expired: CAS to ('X', owner, now + lease).
 *       Held: busy. A lost CAS is "busy" too; the core polls again.
 *   <li>Shared acquire, one transaction: the same read; a live 'S' row is CAS-extended to the later
 *       of both expiries, a free or expired row is CAS-set to 'S' and its stale readers deleted; then
 *       the reader row is inserted with the new version as its token. The CAS keeps the name row's
 *       lock until commit, so a concurrent release sees the reader.
 *   <li>Renew: exclusive, an UPDATE of the expiry guarded by (version, owner, mode 'X', not expired);
 *       shared, the name row's expiry (mode 'S', not expired) then the reader's, in one transaction.
 *       Renewals do not change the version: the token belongs to the grant.
 *   <li>Release: exclusive, CAS guarded by (version, owner) to '-'; shared, one transaction that locks
 *       the name row first, deletes the reader and sets the row to the latest remaining reader
 *       expiry, or to '-' with a new version when none is left.
 * </ul>
 *
 * <p>PostgreSQL: a failed attempt registers its client's LISTEN channel in the row's {@code waiter}
 * column if it is empty; the release statements NOTIFY that channel (see {@link PgNotifications}); a
 * CAS that grants the lock clears it.
 *
 * <p>Fair, exclusive grants go through {@link HandOff}: the release hands the lock to the head of
 * the line (PostgreSQL: in the same statement; H2 and MariaDB: in one short transaction).
 *
 * <p>Compared with the table strategy it never inserts or deletes on the hot path (rows stay), so
 * there is no index churn, and every step is one short statement without row-lock waits in the
 * exclusive case; contenders that lose a CAS poll again. The SQL is in {@link OptimisticStatements}.
 */
public final class OptimisticProtocol extends RowProtocol {
    private final OptimisticStatements sql;

    public OptimisticProtocol(Context context) {
        super(context, false);
        this.sql = new OptimisticStatements(context.dialect(), context.names(), context.fair());
    }

    @Override
    public Map<String, String> probes() {
        return sql.probes();
    }

    @Override
    public WaiterStatements waiters() {
        return sql.waiters;
    }

    @Override
    public String heldIn() {
        return sql.heldIn;
    }

    /** Matched by name, version and owner. */
    @Override
    public String renewIn() {
        return sql.renewExclusiveIn;
    }

    @Override
    public List<Object> renewKey(Grant grant) {
        return List.of(grant.name(), grant.fencingToken(), grant.ownerId());
    }

    /** The name row as read before a CAS. */
    private record Row(long version, char mode, boolean expired) {
        boolean free() {
            return mode == '-' || expired;
        }
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        boolean shared = request.mode() == LockMode.SHARED;
        if (handOff != null && !shared) {
            return handOff.tryAcquire(request);
        }
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        JdbcSession session;
        try {
            session = connections.open(shared);
        } catch (SQLException e) {
            connections.unsent(request);
            throw context.failure(request.name(), "acquire", e);
        }
        try (JdbcSession db = session) {
            Optional<Row> row = db.first(
                    sql.read,
                    rs -> new Row(rs.getLong(1), rs.getString(2).charAt(0), rs.getInt(3) == 1),
                    request.name());
            long token;
            if (row.isEmpty()) {
                if (!db.insertIfAbsent(
                        sql.insertRow,
                        guarded(
                                request,
                                request.name(),
                                shared ? "S" : "X",
                                shared ? "" : request.ownerId(),
                                lease,
                                shared ? "" : request.holder()))) {
                    return busy(db, request.name(), shared); // another client inserted it first and holds it
                }
                token = 1;
            } else {
                Row r = row.get();
                token = r.version() + 1;
                boolean won;
                if (!shared) {
                    won = r.free()
                            && db.update(
                                            sql.casExclusive,
                                            guarded(
                                                    request,
                                                    request.ownerId(),
                                                    lease,
                                                    request.holder(),
                                                    request.name(),
                                                    r.version()))
                                    == 1;
                } else if (r.free()) {
                    won = db.update(sql.casShared, guarded(request, lease, request.name(), r.version())) == 1;
                    if (won) {
                        db.update(sql.deleteReaders, request.name());
                    }
                } else {
                    won = r.mode() == 'S' && db.update(sql.casJoinShared, lease, request.name(), r.version()) == 1;
                }
                if (!won) {
                    return busy(db, request.name(), shared);
                }
            }
            if (shared) {
                db.update(
                        sql.insertReader,
                        JdbcProtocol.params(request.name(), request.ownerId(), lease, token, request.holder()));
                db.commit();
            }
            // The expiry is computed here because MariaDB cannot return what an UPDATE wrote.
            return Optional.of(Grant.of(request, token, JdbcTime.expiry(lease)));
        } catch (SQLException e) {
            if (JdbcFailures.isConflict(e)) {
                return Optional.empty(); // a concurrent transaction: busy now, the core polls again
            }
            throw context.failure(request.name(), "acquire", e);
        }
    }

    /** A granting statement's parameters (arrays spliced in), followed by its guard's when fair. */
    private Object[] guarded(LockRequest request, Object... params) {
        Object[] flat = JdbcProtocol.params(params);
        return context.fair() ? WaiterStatements.with(flat, request.name(), request.ownerId()) : flat;
    }

    /**
     * A failed attempt: on PostgreSQL, with the listener up, asks the holder's release to NOTIFY this
     * client unless another client already asked (the next grant clears the request).
     */
    private Optional<Grant> busy(JdbcSession db, String name, boolean inTransaction) throws SQLException {
        if (sql.notifies && notifications.registerWaiters()) {
            db.update(sql.registerWaiter, notifications.channel(), name);
            if (inTransaction) {
                db.commit();
            }
        }
        return Optional.empty();
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        long lease = JdbcTime.leaseMillis(leaseTime);
        boolean shared = grant.mode() == LockMode.SHARED;
        try (JdbcSession db = connections.open(shared)) {
            if (shared) {
                // Name row first (lock order), then the reader row; both or neither.
                if (db.update(sql.extendShared, lease, grant.name()) != 1
                        || db.update(sql.renewReader, lease, grant.name(), grant.ownerId()) != 1) {
                    return Optional.empty();
                }
                db.commit();
            } else if (db.update(sql.renewExclusive, lease, grant.name(), grant.fencingToken(), grant.ownerId()) != 1) {
                return Optional.empty();
            }
            return Optional.of(grant.withExpiresAt(JdbcTime.expiry(lease)));
        } catch (SQLException e) {
            throw context.failure(grant.name(), "renew", e);
        }
    }

    @Override
    public Released release(Grant grant) {
        return Released.of(release(grant.name(), grant.ownerId(), grant.mode(), grant.fencingToken()));
    }

    @Override
    public void abandon(LockRequest request) {
        release(request.name(), request.ownerId(), request.mode(), 0);
    }

    /** {@code version} 0 means unknown (an abandoned attempt): the owner id alone identifies it. */
    private boolean release(String name, String ownerId, LockMode mode, long version) {
        boolean shared = mode == LockMode.SHARED;
        if (handOff != null && !shared) {
            return handOff.release(name, ownerId); // by owner id: ids are unique per acquisition
        }
        try (JdbcSession db = connections.open(shared)) {
            if (!shared) {
                return version == 0
                        ? released(db, sql.releaseExclusiveByOwner, name, ownerId) == 1
                        : released(db, sql.releaseExclusive, name, version, ownerId) == 1;
            }
            // Name row first (the lock order of every shared transaction), then the reader rows.
            boolean sharedRow = db.update(sql.lockSharedRow, name) == 1;
            boolean wasReader = db.update(sql.deleteReader, name, ownerId) == 1;
            if (sharedRow && wasReader && db.update(sql.setSharedExpiry, name, name, name) == 0) {
                released(db, sql.freeShared, name); // no live reader left: notifies on PostgreSQL
                db.update(sql.deleteReaders, name);
            }
            db.commit();
            return sharedRow && wasReader;
        } catch (SQLException e) {
            throw context.failure(name, "release", e);
        }
    }

    /** Runs a release UPDATE; on PostgreSQL its notifying form, which returns one row per row changed. */
    private int released(JdbcSession db, String statement, Object... params) throws SQLException {
        return sql.notifies ? db.all(statement, LockRows::countRows, params) : db.update(statement, params);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return LockRows.select(context, sql.inspect, name, -JdbcLine.WINDOW_MILLIS, name).stream()
                .findFirst();
    }

    /** Reads every held row of the name table and keeps the names under the prefix. */
    @Override
    public List<LockInfo> list(String prefix) {
        return LockRows.under(LockRows.select(context, sql.list, prefix, -JdbcLine.WINDOW_MILLIS), prefix);
    }
}
