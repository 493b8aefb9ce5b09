package dev.baton.jdbc.row;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockMode;
import dev.baton.jdbc.internal.JdbcConnections;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code table} strategy (docs/design/jdbc.md): one row per lock name, whose {@code version} is
 * its grant's fencing token, each grant a compare-and-set on the version read. Tokens strictly
 * increase per name: the statement that reads the version draws the new one from the sequence, after
 * the grant that wrote that version committed, and the CAS fails if any grant came in between; a name
 * without a row draws before its insert, which fails if a row appeared (a purged one was idle an hour).
 */
public final class RowProtocol implements JdbcProtocol {
    private static final Logger log = LoggerFactory.getLogger(RowProtocol.class);
    static final Duration PURGE_EVERY = Duration.ofMinutes(5); // so that locking per entity id stays small

    final Context context;
    final JdbcConnections connections;
    private final PgNotifications notifications;
    /** Fair: exclusive grants are handed over by the release; null otherwise. */
    final HandOff handOff;

    final RowStatements sql;
    private final AtomicLong nextPurge = new AtomicLong(System.nanoTime() + PURGE_EVERY.toNanos());

    public RowProtocol(Context context) {
        this.context = context;
        this.connections = context.connections();
        this.notifications = context.notifications();
        this.sql = new RowStatements(context.dialect(), context.names(), context.fair());
        this.handOff = context.fair() ? new HandOff(this) : null;
    }

    @Override
    public Map<String, String> probes() {
        return sql.probes;
    }

    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        purgeWhenDue();
        return new BatchRenewal(this).renewAll(grants, leaseTime);
    }

    /** The name row as read before a CAS, with the token the CAS will write. */
    private record Row(long version, char mode, boolean expired, long queued, long token) {
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
        JdbcSession session;
        try {
            session = connections.open(shared);
        } catch (SQLException e) {
            connections.unsent(request);
            throw context.failure(request.name(), "acquire", e);
        }
        try (JdbcSession db = session) {
            return acquire(db, request);
        } catch (SQLException e) {
            if (JdbcFailures.isConflict(e)) {
                return Optional.empty(); // a concurrent transaction: busy now, the core polls again
            }
            throw context.failure(request.name(), "acquire", e);
        }
    }

    /** Reads the name row, then inserts or CASes it; {@code db} is a transaction for a shared grant. */
    Optional<Grant> acquire(JdbcSession db, LockRequest request) throws SQLException {
        boolean shared = request.mode() == LockMode.SHARED;
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        Optional<Row> row = db.first(
                sql.read,
                rs -> new Row(
                        rs.getLong(1), rs.getString(2).charAt(0), rs.getInt(3) == 1, rs.getLong(4), rs.getLong(5)),
                request.name());
        long token;
        if (row.isEmpty()) {
            token = db.first(sql.drawToken, rs -> rs.getLong(1)).orElseThrow();
            Object owner = shared ? "" : request.ownerId();
            Object holder = shared ? "" : request.holder();
            if (!db.insertIfAbsent(
                    sql.insertRow, guarded(request, request.name(), token, shared ? "S" : "X", owner, lease, holder))) {
                return busy(db, request.name(), shared); // another client inserted it first and holds it
            }
        } else {
            token = row.get().token();
            if (!cas(db, request, row.get(), lease)) {
                return busy(db, request.name(), shared);
            }
        }
        if (shared) {
            db.update(sql.insertReader, request.name(), request.ownerId(), lease, token, request.holder());
            db.commit();
        }
        // The expiry is computed here because MariaDB cannot return what an UPDATE wrote.
        return Optional.of(Grant.of(request, token, JdbcTime.expiry(lease)));
    }

    /** Writes {@code r}'s token over the version read: exclusive or shared, from a free or a shared row. */
    private boolean cas(JdbcSession db, LockRequest request, Row r, long lease) throws SQLException {
        String name = request.name();
        if (request.mode() == LockMode.EXCLUSIVE) {
            // The line's guard only when someone is counted in it: MariaDB would run its subquery anyway
            // (it evaluates a constant subquery while planning); a join since the read fails the CAS.
            boolean inLine = r.queued() > 0;
            Object[] params = JdbcProtocol.params(
                    r.token(),
                    request.ownerId(),
                    lease,
                    request.holder(),
                    name,
                    r.version(),
                    inLine ? WaiterStatements.guardParams(name, request.ownerId()) : new Object[0]);
            return r.free() && db.update(inLine ? sql.casExclusiveInLine : sql.casExclusive, params) == 1;
        }
        if (!r.free()) {
            return r.mode() == 'S' && db.update(sql.casJoinShared, r.token(), lease, name, r.version()) == 1;
        }
        boolean won = db.update(sql.casShared, guarded(request, r.token(), lease, name, r.version())) == 1;
        if (won) {
            db.update(sql.deleteReaders, name);
        }
        return won;
    }

    /** A granting statement's parameters (arrays spliced in), followed by its guard's when fair. */
    private Object[] guarded(LockRequest request, Object... params) {
        Object[] guard =
                context.fair() ? WaiterStatements.guardParams(request.name(), request.ownerId()) : new Object[0];
        return JdbcProtocol.params(params, guard);
    }

    /** A failed attempt: on PostgreSQL asks the holder's release to NOTIFY this client if nobody has. */
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
        return Released.of(release(grant.name(), grant.ownerId(), grant.mode()));
    }

    @Override
    public void abandon(LockRequest request) {
        release(request.name(), request.ownerId(), request.mode());
    }

    /** Releases by owner id, which is unique per acquisition. */
    private boolean release(String name, String ownerId, LockMode mode) {
        boolean shared = mode == LockMode.SHARED;
        boolean released =
                handOff != null && !shared ? handOff.release(name, ownerId) : releaseRow(name, ownerId, shared);
        purgeWhenDue();
        return released;
    }

    private boolean releaseRow(String name, String ownerId, boolean shared) {
        try (JdbcSession db = connections.open(shared)) {
            if (!shared) {
                return released(db, sql.releaseExclusive, name, ownerId) == 1;
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

    private void purgeWhenDue() {
        long due = nextPurge.get();
        if (System.nanoTime() - due >= 0 && nextPurge.compareAndSet(due, System.nanoTime() + PURGE_EVERY.toNanos())) {
            purgeIdle();
        }
    }

    /** Deletes the rows of up to a thousand names idle for an hour; -1 (logged) if that failed. */
    public int purgeIdle() {
        try (JdbcSession db = connections.open(false)) {
            int purged = db.update(sql.purge, -TimeUnit.HOURS.toMillis(1));
            log.debug("{}: deleted the rows of {} names idle for an hour", context.backendName(), purged);
            return purged;
        } catch (SQLException e) {
            log.debug("{}: purging idle lock rows failed: {}", context.backendName(), e.toString());
            return -1;
        }
    }

    /** Breaks the grants of {@code name} by owner id; permits are broken by the backend. */
    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        Optional<LockInfo> held = inspect(name);
        List<Holder> hit = held.stream()
                .flatMap(info -> info.holders().stream())
                .filter(h -> ownerId == null || h.ownerId().equals(ownerId))
                .toList();
        if (hit.isEmpty()) {
            return List.of();
        }
        LockInfo info = held.get();
        for (Holder h : hit) {
            abandon(LockRequest.builder(name, h.ownerId(), info.kind(), Duration.ofSeconds(1))
                    .build());
        }
        return List.of(
                LockInfo.of(name, info.kind(), hit).withPermits(info.permits()).withWaiters(info.waiters()));
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return LockRows.select(context, sql.inspect, name, -JdbcLine.WINDOW_MILLIS, name).stream()
                .findFirst();
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return LockRows.select(context, sql.list, prefix, -JdbcLine.WINDOW_MILLIS).stream()
                .filter(info -> info.name().startsWith(prefix))
                .toList();
    }
}
