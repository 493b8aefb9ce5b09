package dev.baton.jdbc;

import dev.baton.spi.Grant;
import dev.baton.spi.LockInfo;
import dev.baton.spi.LockMode;
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
 * shared lock in {@code <table>_readers}, fencing tokens from {@code <table>_fencing_seq}.
 *
 * <p>Protocol (every expiry is computed and compared on the database's clock):
 *
 * <ul>
 *   <li>Exclusive acquire, one transaction: insert the name row ('X', owner) unless it exists; if it
 *       existed, take it over only if it has expired (guarded UPDATE) and delete its readers. On
 *       PostgreSQL this is one auto-commit statement (a data-modifying CTE around {@code INSERT ... ON
 *       CONFLICT DO UPDATE ... WHERE expired}), which also registers the waiter when the lock is busy;
 *       a lock the statement's snapshot already shows live is answered without any write or lock.
 *   <li>Shared acquire, one transaction: insert the name row ('S', owner ''), or extend a live 'S'
 *       row, or take over an expired row of any mode as 'S' (deleting its readers); then insert the
 *       reader row. The 'S' row's expiry is the latest of its readers' expiries.
 *   <li>A writer decides on the name row's own columns only (mode, expiry), never on a subquery over
 *       readers, so PostgreSQL's READ COMMITTED re-check of a concurrently updated row (EvalPlanQual)
 *       sees everything the decision depends on.
 *   <li>Lock order is always the name row first, then reader rows: no deadlock between readers and
 *       writers.
 *   <li>The fencing token is drawn from the sequence while the transaction holds the name row's lock
 *       (after the insert, or inside the guarded update), so grants of one name draw their tokens in
 *       the order they are granted: tokens strictly increase per name although rows are deleted on
 *       release. (Drawing it in the INSERT's VALUES would not do by itself: the value is computed
 *       before the insert meets the key, and a grant-and-release by another owner could fit in
 *       between.) On PostgreSQL the single-statement exclusive acquire does draw it with the insert,
 *       and that is made safe by a transaction-level advisory lock on the name ({@code
 *       pg_advisory_xact_lock}, two-int key space) that every grant, exclusive or shared, takes
 *       before drawing its token and holds until it commits: no other grant of the name can happen
 *       between the draw and the insert.
 *   <li>Renew and release match the owner id, so they never touch another owner's grant.
 *   <li>PostgreSQL: a failed attempt registers its client's LISTEN channel in the row's {@code waiter}
 *       column if it is empty; the release statement NOTIFYs that channel (see {@link
 *       PgNotifications}); a new grant clears it.
 * </ul>
 *
 * <p>The SQL, for H2 and PostgreSQL, is in {@link TableStatements}.
 */
final class TableProtocol implements JdbcProtocol {
    private static final Logger log = LoggerFactory.getLogger(TableProtocol.class);

    private final Context context;
    private final TableStatements sql;
    private final JdbcConnections connections;
    private final PgNotifications notifications;
    private final boolean fair;
    /** PostgreSQL, fair: exclusive grants are handed over by the release; null otherwise. */
    private final HandOff handOff;

    TableProtocol(Context context) {
        this.context = context;
        this.sql = new TableStatements(context.dialect(), context.names(), context.fair(), context.described());
        this.connections = context.connections();
        this.notifications = context.notifications();
        this.fair = context.fair();
        this.handOff = sql.handOff == null ? null : new HandOff(sql.handOff, context);
    }

    @Override
    public HandOff handOff() {
        return handOff;
    }

    @Override
    public Map<String, String> upgrades() {
        return handOff == null
                ? Map.of()
                : WaiterStatements.handOffColumns(context.names().locks(), sql.waiters.table);
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
            try {
                return handOff.acquire(request);
            } catch (SQLException e) {
                return busyOrFail(request, e);
            }
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
            return Optional.of(new Grant(
                    request.name(),
                    request.ownerId(),
                    request.mode(),
                    written.get().token(),
                    written.get().expiresAt(),
                    null));
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
                    JdbcProtocol.holder(context, request.holder()),
                    lease,
                    register ? new Object[] {notifications.channel(), request.name()} : new Object[0]);
            // The expiry comes as epoch milliseconds (rounded down): a number is cheaper to read.
            Optional<Written> written = db.first(
                    register ? sql.acquireExclusiveOneRegistering : sql.acquireExclusiveOne,
                    rs -> new Written(rs.getLong(1), Instant.ofEpochMilli(rs.getLong(2))),
                    params);
            return written.map(
                    w -> new Grant(request.name(), request.ownerId(), request.mode(), w.token(), w.expiresAt(), null));
        } catch (SQLException e) {
            return busyOrFail(request, e);
        }
    }

    private int[] grantKey(String lockName) {
        return AdvisoryKeys.grantKey(context.names(), lockName);
    }

    private Optional<Written> acquireExclusive(JdbcSession tx, LockRequest request, long lease) throws SQLException {
        Object[] holder = JdbcProtocol.holder(context, request.holder());
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
        Object[] none = JdbcProtocol.holder(context, ""); // the name row of readers has no holder of its own
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
        Object[] holder = JdbcProtocol.holder(context, request.holder());
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
            try {
                return handOff.release(name, ownerId);
            } catch (SQLException e) {
                throw context.failure(name, "release", e);
            }
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
    public Map<String, String> holderTables() {
        return JdbcSchema.addHolder(context.dialect(), sql.holderTables);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return LockRows.select(context, sql.inspect, name, -FairQueue.WINDOW_MILLIS, name).stream()
                .findFirst();
    }

    /** Reads every held row of the name table and keeps the names under the prefix. */
    @Override
    public List<LockInfo> list(String prefix) {
        return LockRows.under(LockRows.select(context, sql.list, prefix, -FairQueue.WINDOW_MILLIS), prefix);
    }

    /** A grant as the database wrote it. */
    private record Written(long token, Instant expiresAt) {}

    /** Runs a "returns" statement; the row written, if any. */
    private static Optional<Written> written(JdbcSession tx, String sql, Object... params) throws SQLException {
        return tx.first(sql, rs -> new Written(rs.getLong(1), JdbcSession.instant(rs, 2)), params);
    }
}
