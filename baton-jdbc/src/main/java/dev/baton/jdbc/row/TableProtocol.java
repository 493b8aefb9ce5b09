package dev.baton.jdbc.row;

import dev.baton.LockInfo;
import dev.baton.LockMode;
import dev.baton.jdbc.internal.AdvisoryKeys;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.jdbc.internal.LockRows;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code table} strategy: one row per held lock name in {@code <table>}, one row per reader of a
 * shared lock in {@code <table>_readers}, fencing tokens from {@code <table>_fencing_seq}; every
 * expiry on the database's clock, renew and release by owner id. The protocol, and why its tokens
 * strictly increase per name, is described with its SQL in {@link TableStatements}.
 *
 * <p>Fair, exclusive grants go through {@link HandOff}: the release hands the lock to the head of
 * the line (PostgreSQL: in the same statement; H2: in one short transaction). Shared grants keep the
 * guard of {@link WaiterStatements} in their granting statements.
 */
public final class TableProtocol extends RowProtocol {
    private static final Logger log = LoggerFactory.getLogger(TableProtocol.class);

    private final TableStatements sql;
    private final boolean fair;

    public TableProtocol(Context context) {
        super(context, true);
        this.sql = new TableStatements(context.dialect(), context.names(), context.fair());
        this.fair = context.fair();
    }

    @Override
    public Map<String, String> probes() {
        return sql.probes;
    }

    @Override
    public WaiterStatements waiters() {
        return sql.waiters;
    }

    @Override
    public String heldIn() {
        return sql.heldIn;
    }

    @Override
    public String renewIn() {
        return sql.renewExclusiveIn;
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        if (handOff != null && request.mode() == LockMode.EXCLUSIVE) {
            return handOff.tryAcquire(request);
        }
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        JdbcSession session;
        try {
            // PostgreSQL's exclusive acquire is one statement in auto-commit mode; the rest, transactions.
            session = connections.open(request.mode() != LockMode.EXCLUSIVE || sql.acquireExclusiveOne == null);
        } catch (SQLException e) {
            connections.unsent(request);
            throw context.failure(request.name(), "acquire", e);
        }
        if (request.mode() == LockMode.EXCLUSIVE && sql.acquireExclusiveOne != null) {
            return acquireExclusiveOne(session, request, lease);
        }
        try (JdbcSession tx = session) {
            if (sql.grantLock != null) {
                int[] key = grantKey(request.name());
                tx.first(sql.grantLock, rs -> Boolean.TRUE, key[0], key[1]);
            }
            Optional<Written> written = request.mode() == LockMode.EXCLUSIVE
                    ? acquireExclusive(tx, request, lease)
                    : acquireShared(tx, request, lease);
            if (written.isEmpty()) {
                if (sql.registerWaiter != null && notifications.registerWaiters()) {
                    // Busy: ask the holder's release to NOTIFY this client, unless another already asked.
                    tx.update(sql.registerWaiter, notifications.channel(), request.name());
                    tx.commit();
                }
                return Optional.empty();
            }
            tx.commit();
            return Optional.of(
                    Grant.of(request, written.get().token(), written.get().expiresAt()));
        } catch (SQLException e) {
            return busyOrFail(request, e);
        }
    }

    /**
     * A concurrent transaction held the row longer than the database was willing to wait: the lock is
     * busy right now, which is what "empty" means; the core polls again. Anything else fails.
     */
    private Optional<Grant> busyOrFail(LockRequest request, SQLException e) {
        if (JdbcFailures.isConflict(e)) {
            log.debug(
                    "Baton lock '{}' on {}: acquire met a concurrent transaction: {}",
                    request.name(),
                    context.backendName(),
                    e.toString());
            return Optional.empty();
        }
        throw context.failure(request.name(), "acquire", e);
    }

    /**
     * PostgreSQL's exclusive acquire: one auto-commit statement that takes the lock (insert, or takeover
     * of an expired grant) and, when the lock is busy, registers this client as its waiter.
     */
    private Optional<Grant> acquireExclusiveOne(JdbcSession session, LockRequest request, long lease) {
        int[] key = grantKey(request.name());
        boolean register = notifications.registerWaiters();
        try (JdbcSession db = session) {
            Object[] params = JdbcProtocol.params(
                    key[0],
                    key[1],
                    request.name(),
                    fair ? WaiterStatements.guardParams(request.name(), request.ownerId()) : new Object[0],
                    request.name(),
                    request.ownerId(),
                    lease,
                    request.holder(),
                    lease,
                    register ? new Object[] {notifications.channel(), request.name()} : new Object[0]);
            // The expiry comes as epoch milliseconds (rounded down): a number is cheaper to read.
            Optional<Written> written = db.first(
                    register ? sql.acquireExclusiveOneRegistering : sql.acquireExclusiveOne,
                    rs -> new Written(rs.getLong(1), Instant.ofEpochMilli(rs.getLong(2))),
                    params);
            return written.map(w -> Grant.of(request, w.token(), w.expiresAt()));
        } catch (SQLException e) {
            return busyOrFail(request, e);
        }
    }

    private int[] grantKey(String lockName) {
        return AdvisoryKeys.grantKey(context.names(), lockName);
    }

    private Optional<Written> acquireExclusive(JdbcSession tx, LockRequest request, long lease) throws SQLException {
        Object holder = request.holder();
        if (tx.insertIfAbsent(
                sql.insertNameRow, guarded(request, request.name(), "X", request.ownerId(), lease, holder))) {
            return written(tx, sql.drawToken, request.name());
        }
        Optional<Written> taken = written(
                tx, sql.takeOverExpired, guarded(request, "X", request.ownerId(), lease, holder, request.name()));
        if (taken.isPresent()) {
            tx.update(sql.deleteReaders, request.name());
        }
        return taken;
    }

    private Optional<Written> acquireShared(JdbcSession tx, LockRequest request, long lease) throws SQLException {
        Object none = ""; // the name row of readers has no holder of its own
        boolean haveNameRow =
                tx.insertIfAbsent(sql.insertNameRow, guarded(request, request.name(), "S", "", lease, none))
                        || tx.update(sql.extendShared, lease, request.name()) == 1;
        if (!haveNameRow) {
            if (written(tx, sql.takeOverExpired, guarded(request, "S", "", lease, none, request.name()))
                    .isEmpty()) {
                return Optional.empty();
            }
            tx.update(sql.deleteReaders, request.name());
        }
        Object holder = request.holder();
        Object[] params = JdbcProtocol.params(request.name(), request.ownerId(), lease, request.name(), holder);
        return written(tx, sql.insertReader, params);
    }

    /** A granting statement's parameters (arrays spliced in), followed by its guard's when fair. */
    private Object[] guarded(LockRequest request, Object... params) {
        Object[] flat = JdbcProtocol.params(params);
        return fair ? WaiterStatements.with(flat, request.name(), request.ownerId()) : flat;
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        long lease = JdbcTime.leaseMillis(leaseTime);
        boolean shared = grant.mode() == LockMode.SHARED;
        try (JdbcSession tx = connections.open(shared)) {
            Optional<Written> renewed;
            if (shared) {
                // Name row first (lock order), then the reader row; both or neither.
                if (tx.update(sql.extendShared, lease, grant.name()) != 1) {
                    return Optional.empty();
                }
                renewed = written(tx, sql.renewReader, lease, grant.name(), grant.name(), grant.ownerId());
                if (renewed.isEmpty()) {
                    return Optional.empty();
                }
                tx.commit();
            } else {
                renewed = written(tx, sql.renewExclusive, lease, grant.name(), grant.ownerId());
            }
            return renewed.map(written -> grant.withExpiresAt(written.expiresAt()));
        } catch (SQLException e) {
            // Conflicts included: the core retries a failed renewal while the lease is still valid.
            throw context.failure(grant.name(), "renew", e);
        }
    }

    @Override
    public Released release(Grant grant) {
        return Released.of(release(grant.name(), grant.ownerId(), grant.mode()));
    }

    /** Releases by owner id, which identifies one acquisition; safe when the attempt left nothing. */
    @Override
    public void abandon(LockRequest request) {
        release(request.name(), request.ownerId(), request.mode());
    }

    private boolean release(String name, String ownerId, LockMode mode) {
        if (handOff != null && mode == LockMode.EXCLUSIVE) {
            return handOff.release(name, ownerId);
        }
        try (JdbcSession tx = connections.open(mode == LockMode.SHARED)) {
            if (mode == LockMode.EXCLUSIVE) {
                return sql.notifies
                        ? tx.all(sql.releaseExclusive, LockRows::countRows, name, ownerId) == 1
                        : tx.update(sql.releaseExclusive, name, ownerId) == 1;
            }
            if (tx.first(sql.lockSharedRow, rs -> Boolean.TRUE, name).isEmpty()
                    || tx.update(sql.deleteReader, name, ownerId) == 0) {
                return false;
            }
            tx.update(sql.deleteExpiredReaders, name);
            Optional<OffsetDateTime> latest =
                    tx.first(sql.latestReaderExpiry, rs -> rs.getObject(1, OffsetDateTime.class), name);
            if (latest.isEmpty()) {
                // The last reader left; on PostgreSQL this notifies a registered waiter at commit.
                if (sql.notifies) {
                    tx.all(sql.deleteSharedRow, LockRows::countRows, name);
                } else {
                    tx.update(sql.deleteSharedRow, name);
                }
            } else {
                tx.update(sql.setSharedExpiry, latest.get(), name);
            }
            tx.commit();
            return true;
        } catch (SQLException e) {
            throw context.failure(name, "release", e);
        }
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

    /** A grant as the database wrote it. */
    private record Written(long token, Instant expiresAt) {}

    /** Runs a "returns" statement; the row written, if any. */
    private static Optional<Written> written(JdbcSession tx, String sql, Object... params) throws SQLException {
        return tx.first(sql, rs -> new Written(rs.getLong(1), JdbcSession.instant(rs, 2)), params);
    }
}
