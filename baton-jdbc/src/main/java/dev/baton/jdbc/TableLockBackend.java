package dev.baton.jdbc;

import dev.baton.LockConfigurationException;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockInfo;
import dev.baton.spi.LockMode;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
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
 * <p>The schema is checked once, on first use, and created when absent if allowed.
 */
final class TableLockBackend implements LockBackend {
    private static final Logger log = LoggerFactory.getLogger(TableLockBackend.class);

    static final String STRATEGY_NAME = "jdbc-table";

    /** Longer leases are effectively infinite; the cap keeps the timestamp arithmetic in range. */
    private static final long MAX_LEASE_MILLIS = Duration.ofDays(36_500).toMillis();

    private final DataSource dataSource;
    private final ReconnectingPool ownedPool;
    private final TableNames names;
    private final boolean createSchema;
    private final Duration operationTimeout;
    private final int queryTimeoutSeconds;

    private volatile Dialect dialect;
    /** Passed with the statements, once the dialect is known and the schema exists. */
    private final SchemaGate<Statements> gate;

    private final BatchRenewal batchRenewal;
    /** The isolation level the DataSource hands out, when it is not READ COMMITTED; -1 otherwise. */
    private volatile int isolationToRestore = -1;
    /** The owner id of this thread's last acquire attempt if it failed before reaching the database. */
    private final ThreadLocal<String> unsentAttempt = new ThreadLocal<>();
    /** LISTEN/NOTIFY wake-ups on PostgreSQL; unsupported (waiters poll) on H2. */
    private final PgNotifications notifications;
    /** Semaphore permits, in tables of their own. */
    private final JdbcPermits permits;
    /** Whether a queued waiter comes before a re-acquire (see {@link WaiterStatements}). */
    private final boolean fair;
    /** The line of waiters when fair, which wraps {@link #notifications}; null when barging. */
    private final FairQueue queue;

    /**
     * @param dialect the database, or null to detect it from the first connection
     * @param ownedPool closed with this backend (the pool built from a URL); null when the application
     *     owns the DataSource
     */
    TableLockBackend(
            DataSource dataSource,
            Dialect dialect,
            TableNames names,
            boolean createSchema,
            Duration operationTimeout,
            ReconnectingPool ownedPool,
            boolean fair) {
        this.dataSource = dataSource;
        this.fair = fair;
        this.dialect = dialect;
        this.names = names;
        this.createSchema = createSchema;
        this.operationTimeout = operationTimeout;
        this.queryTimeoutSeconds = queryTimeoutSeconds(operationTimeout);
        this.ownedPool = ownedPool;
        this.gate = new SchemaGate<>(this::name, operationTimeout, names);
        this.batchRenewal = new BatchRenewal(
                () -> open(false),
                grant -> ready(grant.name()).renewExclusiveIn,
                grant -> List.of(grant.name(), grant.ownerId()),
                this::renew,
                (grant, e) -> failure(grant.name(), "renew", e));
        this.notifications = new PgNotifications(this::name, dataSource, ownedPool, operationTimeout, () -> {
            Dialect known = this.dialect;
            return known == null || known == Dialect.POSTGRESQL;
        });
        this.permits = new JdbcPermits(
                this::name,
                dataSource,
                ownedPool,
                names,
                createSchema,
                operationTimeout,
                name -> {
                    ready(name);
                    return this.dialect;
                },
                notifications);
        this.queue = fair
                ? new FairQueue(
                        this::name,
                        notifications,
                        () -> open(false),
                        name -> ready(name).waiters,
                        name -> ready(name).heldIn,
                        () -> notifications.registerWaiters() ? notifications.channel() : null)
                : null;
    }

    /** Permits live in tables of their own ({@link JdbcPermits}); waiters poll, woken on PostgreSQL. */
    @Override
    public boolean supportsPermits() {
        return true;
    }

    /**
     * On PostgreSQL, a release NOTIFYs the channel of the client registered as the row's waiter (see
     * {@link PgNotifications}); on H2 waiters poll.
     */
    @Override
    public ReleaseNotifications releaseNotifications() {
        return fair ? queue : notifications;
    }

    /** JDBC query timeouts are whole seconds; round up, and never 0, which means no timeout. */
    static int queryTimeoutSeconds(Duration operationTimeout) {
        long millis = Math.max(1, operationTimeout.toMillis());
        return (int) Math.min(Integer.MAX_VALUE, (millis + 999) / 1000);
    }

    @Override
    public String name() {
        Dialect known = dialect;
        return known == null ? STRATEGY_NAME : STRATEGY_NAME + " (" + known.displayName() + ")";
    }

    // ---------------------------------------------------------------------------------------------
    // The protocol

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        if (JdbcPermits.isPermit(request)) {
            return permits.tryAcquire(request);
        }
        unsentAttempt.remove();
        long lease = leaseMillis(request.leaseTime());
        Statements sql;
        JdbcSession session;
        try {
            sql = ready(request.name());
            // PostgreSQL's exclusive acquire is one statement in auto-commit mode; the rest, transactions.
            session = open(request.mode() != LockMode.EXCLUSIVE || sql.acquireExclusiveOne == null);
        } catch (SQLException e) {
            unsentAttempt.set(request.ownerId());
            throw failure(request.name(), "acquire", e);
        } catch (RuntimeException e) {
            unsentAttempt.set(request.ownerId());
            throw e;
        }
        if (request.mode() == LockMode.EXCLUSIVE && sql.acquireExclusiveOne != null) {
            return acquireExclusiveOne(session, sql, request, lease);
        }
        try (JdbcSession tx = session) {
            if (sql.grantLock != null) {
                int[] key = grantKey(request.name());
                tx.first(sql.grantLock, rs -> Boolean.TRUE, key[0], key[1]);
            }
            Optional<Written> written = request.mode() == LockMode.EXCLUSIVE
                    ? acquireExclusive(tx, sql, request, lease)
                    : acquireShared(tx, sql, request, lease);
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
            if (JdbcFailures.isConflict(e)) {
                // A concurrent transaction held the row longer than the database was willing to wait:
                // the lock is busy right now, which is what "empty" means; the core polls again.
                log.debug(
                        "Baton lock '{}' on {}: acquire met a concurrent transaction: {}",
                        request.name(),
                        name(),
                        e.toString());
                return Optional.empty();
            }
            throw failure(request.name(), "acquire", e);
        }
    }

    /**
     * PostgreSQL's exclusive acquire: one auto-commit statement that takes the lock (insert, or takeover
     * of an expired grant) and, when the lock is busy, registers this client as its waiter.
     */
    private Optional<Grant> acquireExclusiveOne(JdbcSession session, Statements sql, LockRequest request, long lease) {
        int[] key = grantKey(request.name());
        boolean register = notifications.registerWaiters();
        try (JdbcSession db = session) {
            List<Object> params = new ArrayList<>(List.of(key[0], key[1], request.name()));
            if (fair) {
                params.addAll(List.of(WaiterStatements.guardParams(request.name(), request.ownerId())));
            }
            params.addAll(List.of(request.name(), request.ownerId(), lease, lease));
            if (register) {
                params.add(notifications.channel());
                params.add(request.name());
            }
            // The expiry comes as epoch milliseconds (rounded down): a number is cheaper to read.
            Optional<Written> written = db.first(
                    register ? sql.acquireExclusiveOneRegistering : sql.acquireExclusiveOne,
                    rs -> new Written(rs.getLong(1), Instant.ofEpochMilli(rs.getLong(2))),
                    params.toArray());
            return written.map(
                    w -> new Grant(request.name(), request.ownerId(), request.mode(), w.token(), w.expiresAt(), null));
        } catch (SQLException e) {
            if (JdbcFailures.isConflict(e)) {
                log.debug(
                        "Baton lock '{}' on {}: acquire met a concurrent transaction: {}",
                        request.name(),
                        name(),
                        e.toString());
                return Optional.empty();
            }
            throw failure(request.name(), "acquire", e);
        }
    }

    /**
     * The key pair of a name's transaction-level advisory lock: the first 8 bytes of SHA-256 over
     * {@code <table>#grant:<name>}, as two ints. The two-int key space of PostgreSQL's advisory locks
     * is separate from the one-bigint space the advisory strategy uses. A collision only makes two
     * names' grants take turns for the length of one statement.
     */
    private int[] grantKey(String lockName) {
        long key = AdvisoryLockBackend.key(names, "#grant:" + lockName);
        return new int[] {(int) (key >>> 32), (int) key};
    }

    private Optional<Written> acquireExclusive(JdbcSession tx, Statements sql, LockRequest request, long lease)
            throws SQLException {
        if (tx.insertIfAbsent(sql.insertNameRow, guarded(request, request.name(), "X", request.ownerId(), lease))) {
            return written(tx, sql.drawToken, request.name());
        }
        Optional<Written> taken =
                written(tx, sql.takeOverExpired, guarded(request, "X", request.ownerId(), lease, request.name()));
        if (taken.isPresent()) {
            tx.update(sql.deleteReaders, request.name());
        }
        return taken;
    }

    private Optional<Written> acquireShared(JdbcSession tx, Statements sql, LockRequest request, long lease)
            throws SQLException {
        boolean haveNameRow = tx.insertIfAbsent(sql.insertNameRow, guarded(request, request.name(), "S", "", lease))
                || tx.update(sql.extendShared, lease, request.name()) == 1;
        if (!haveNameRow) {
            if (written(tx, sql.takeOverExpired, guarded(request, "S", "", lease, request.name()))
                    .isEmpty()) {
                return Optional.empty();
            }
            tx.update(sql.deleteReaders, request.name());
        }
        return written(tx, sql.insertReader, request.name(), request.ownerId(), lease, request.name());
    }

    /** A granting statement's parameters, followed by its guard's when fair. */
    private Object[] guarded(LockRequest request, Object... params) {
        return fair ? WaiterStatements.with(params, request.name(), request.ownerId()) : params;
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        if (JdbcPermits.isPermit(grant)) {
            return permits.renew(grant, leaseTime);
        }
        Statements sql = ready(grant.name());
        long lease = leaseMillis(leaseTime);
        boolean shared = grant.mode() == LockMode.SHARED;
        try (JdbcSession tx = open(shared)) {
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
            throw failure(grant.name(), "renew", e);
        }
    }

    @Override
    public int renewalBatchSize() {
        return BatchRenewal.SIZE;
    }

    /**
     * Exclusive grants in one statement per call ({@link BatchRenewal}), shared ones one by one,
     * permits in one statement of their own ({@link JdbcPermits}).
     */
    @Override
    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        return permits.renewAll(grants, leaseTime, batchRenewal::renewAll);
    }

    @Override
    public boolean release(Grant grant) {
        if (JdbcPermits.isPermit(grant)) {
            return permits.release(grant);
        }
        return release(grant.name(), grant.ownerId(), grant.mode());
    }

    /**
     * Releases by owner id, which identifies one acquisition; safe when the attempt left nothing. An
     * attempt that failed on this thread before sending anything (no connection, no schema) is known
     * to have left nothing, so no second connection attempt adds to the caller's wait.
     */
    @Override
    public void abandon(LockRequest request) {
        if (JdbcPermits.isPermit(request)) {
            permits.abandon(request);
            return;
        }
        if (request.ownerId().equals(unsentAttempt.get())) {
            unsentAttempt.remove();
            return;
        }
        release(request.name(), request.ownerId(), request.mode());
    }

    private boolean release(String name, String ownerId, LockMode mode) {
        Statements sql = ready(name);
        try (JdbcSession tx = open(mode == LockMode.SHARED)) {
            if (mode == LockMode.EXCLUSIVE) {
                return sql.notifies
                        ? tx.all(sql.releaseExclusive, TableLockBackend::countRows, name, ownerId) == 1
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
                    tx.all(sql.deleteSharedRow, TableLockBackend::countRows, name);
                } else {
                    tx.update(sql.deleteSharedRow, name);
                }
            } else {
                tx.update(sql.setSharedExpiry, latest.get(), name);
            }
            tx.commit();
            return true;
        } catch (SQLException e) {
            throw failure(name, "release", e);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        Statements sql = ready(name);
        try (JdbcSession session = open(false)) {
            return session.all(sql.inspect, rs -> toLockInfo(name, rs), name);
        } catch (SQLException e) {
            throw failure(name, "inspect", e);
        }
    }

    private static Optional<LockInfo> toLockInfo(String name, ResultSet rs) throws SQLException {
        List<String> readers = new ArrayList<>();
        long token = Long.MIN_VALUE;
        Instant expiresAt = null;
        while (rs.next()) {
            expiresAt = rs.getObject(4, OffsetDateTime.class).toInstant();
            if ("X".equals(rs.getString(1).trim())) {
                return Optional.of(
                        new LockInfo(name, LockMode.EXCLUSIVE, List.of(rs.getString(2)), rs.getLong(3), expiresAt));
            }
            String reader = rs.getString(5);
            if (reader != null) {
                readers.add(reader);
                token = Math.max(token, rs.getLong(6));
            }
        }
        return readers.isEmpty()
                ? Optional.empty()
                : Optional.of(new LockInfo(name, LockMode.SHARED, readers, token, expiresAt));
    }

    /** Counts the rows of a result (the rows a DELETE ... RETURNING wrote). */
    static int countRows(ResultSet rs) throws SQLException {
        int rows = 0;
        while (rs.next()) {
            rows++;
        }
        return rows;
    }

    @Override
    public void close() {
        if (!gate.close()) {
            return;
        }
        permits.close();
        if (queue != null) {
            queue.close();
        }
        notifications.close();
        JdbcSession.closeOwnedPool(ownedPool, name());
    }

    /** For tests: the pool this backend built and closes, or null. */
    ReconnectingPool ownedPool() {
        return ownedPool;
    }

    private static long leaseMillis(Duration leaseTime) {
        // Round up: a lease shorter than a millisecond must not become an already expired grant.
        long nanos;
        try {
            nanos = leaseTime.toNanos();
        } catch (ArithmeticException tooLong) {
            return MAX_LEASE_MILLIS;
        }
        return Math.min(MAX_LEASE_MILLIS, Math.max(1, (nanos + 999_999) / 1_000_000));
    }

    // ---------------------------------------------------------------------------------------------
    // The statements

    /** A grant as the database wrote it. */
    record Written(long token, Instant expiresAt) {}

    /**
     * Every statement of the protocol for one dialect and table, built once. In the templates, {@code
     * {locks}}, {@code {readers}}, {@code {now}} and {@code {next_token}} stand for the tables, the
     * database clock and the sequence; {@code {now+lease}} is the clock plus the lease, bound in
     * milliseconds as a parameter. "Returning" statements yield (fencing_token, expires_at) of the
     * rows they wrote. The comment above each statement lists its parameters in order.
     */
    static final class Statements {
        private static final String WRITTEN = "fencing_token, expires_at";

        private final Dialect dialect;
        private final TableNames names;

        final String insertNameRow;
        /**
         * PostgreSQL: the whole exclusive acquire in one auto-commit statement (see {@link
         * #acquireExclusiveOne}); null elsewhere.
         */
        final String acquireExclusiveOne;
        /** The same, registering a channel as the row's waiter when the lock is busy; null elsewhere. */
        final String acquireExclusiveOneRegistering;
        /** PostgreSQL: the per-name transaction-level advisory lock every grant takes first; null elsewhere. */
        final String grantLock;

        final String drawToken;
        final String takeOverExpired;
        final String deleteReaders;
        final String extendShared;
        final String insertReader;
        final String renewExclusive;
        /** The batch renewal up to its IN list; ? = lease, then each grant's key ({@link BatchRenewal}). */
        final String renewExclusiveIn;

        final String renewReader;
        final String releaseExclusive;
        final String lockSharedRow;
        final String deleteReader;
        final String deleteExpiredReaders;
        final String latestReaderExpiry;
        final String deleteSharedRow;
        final String setSharedExpiry;
        final String inspect;
        /**
         * Whether the releases notify a registered waiter (PostgreSQL); they then return one row per
         * row they deleted.
         */
        final boolean notifies;
        /** PostgreSQL: registers a client's channel as the row's waiter if none is; null elsewhere. */
        final String registerWaiter;
        /** Object name to a statement that fails when the object does not exist. */
        final Map<String, String> probes;
        /** The fair hand-off's statements; its guard is in the granting statements when fair. */
        final WaiterStatements waiters;
        /** The names among a list that are held; up to the IN list ({@link FairQueue}). */
        final String heldIn;

        private final boolean fair;

        Statements(Dialect dialect, TableNames names, boolean fair) {
            this.dialect = dialect;
            this.names = names;
            this.fair = fair;
            this.notifies = dialect == Dialect.POSTGRESQL;
            this.waiters = new WaiterStatements(dialect, names.locks() + "_waiters");
            this.heldIn = sql("SELECT lock_name FROM {locks} WHERE expires_at > {now} AND lock_name IN ");

            // Acquire. The token is drawn after the insert, under the new row's lock (see class doc).
            // ? = name, mode, owner, lease [, the guard's]. Fair: inserted only when nobody waits ahead.
            insertNameRow = dialect.insertIfAbsent(
                    fair
                            ? sql("INSERT INTO {locks} (lock_name, lock_mode, owner_id, expires_at, fencing_token)"
                                    + " SELECT " + waiters.param("VARCHAR(512)") + ", " + waiters.param("CHAR(1)")
                                    + ", " + waiters.param("VARCHAR(64)") + ", {now+lease}, 0" + waiters.fromDual
                                    + " WHERE {guard}")
                            : sql(
                                    """
                            INSERT INTO {locks} (lock_name, lock_mode, owner_id, expires_at, fencing_token)
                            VALUES (?, ?, ?, {now+lease}, 0)"""),
                    "lock_name");
            if (dialect == Dialect.POSTGRESQL) {
                // One round trip, in its own (auto-commit) transaction:
                // g: unless the snapshot shows a live row (then the lock is busy: no lock, no write),
                //    take the name's transaction-level advisory lock. Every grant of the name, exclusive
                //    or shared, holds it from before drawing its token until it commits, so grants draw
                //    their tokens in the order they are granted even on the insert path, where the token
                //    is drawn before the insert meets the key (see the class comment).
                // t: insert the row, or take over an expired one under its row lock.
                // d: a takeover deletes the readers of the expired grant (name row first, then readers).
                // w: (registering variant) a busy lock gets this client's channel as its waiter.
                // Fair: g also requires that no live waiter other than the requester is ahead (the
                //    guard, see WaiterStatements), so a busy or reserved lock is answered without a write.
                // ? = key1, key2, name [, the guard's], name, owner, lease, lease [, channel, name]
                String one =
                        """
                        WITH g AS MATERIALIZED (
                          SELECT pg_advisory_xact_lock(?, ?)::text AS held
                          WHERE NOT EXISTS (SELECT 1 FROM {locks} b WHERE b.lock_name = ? AND b.expires_at > {now})
                          {and_guard}),
                        t AS (
                          INSERT INTO {locks} AS l (lock_name, lock_mode, owner_id, expires_at, fencing_token)
                          SELECT ?, 'X', ?, {now+lease}, {next_token} FROM g
                          ON CONFLICT (lock_name) DO UPDATE
                          SET lock_mode = 'X', owner_id = EXCLUDED.owner_id, expires_at = {now+lease},
                              fencing_token = {next_token}, waiter = NULL
                          WHERE l.expires_at <= {now}
                          RETURNING l.lock_name, l.fencing_token, l.expires_at),
                        d AS (DELETE FROM {readers} r USING t WHERE r.lock_name = t.lock_name)%s
                        SELECT fencing_token, floor(date_part('epoch', expires_at) * 1000)::bigint FROM t""";
                acquireExclusiveOne = sql(one.formatted(""));
                acquireExclusiveOneRegistering = sql(
                        one.formatted(
                                """
                        ,
                        w AS (UPDATE {locks} SET waiter = ?
                              WHERE lock_name = ? AND waiter IS NULL AND NOT EXISTS (SELECT 1 FROM t))"""));
                // ? = key1, key2
                grantLock = "SELECT pg_advisory_xact_lock(?, ?)::text";
            } else {
                acquireExclusiveOne = null;
                acquireExclusiveOneRegistering = null;
                grantLock = null;
            }
            // ? = name
            drawToken = returning("UPDATE {locks} SET fencing_token = {next_token} WHERE lock_name = ?");
            // ? = mode, owner, lease, name [, the guard's]
            takeOverExpired = returning(
                    """
                    UPDATE {locks}
                    SET lock_mode = ?, owner_id = ?, expires_at = {now+lease}, fencing_token = {next_token}{reset_waiter}
                    WHERE lock_name = ? AND expires_at <= {now} {and_guard}""");
            // ? = name
            deleteReaders = sql("DELETE FROM {readers} WHERE lock_name = ?");
            // ? = lease, name
            extendShared = sql(
                    """
                    UPDATE {locks} SET expires_at = GREATEST(expires_at, {now+lease})
                    WHERE lock_name = ? AND lock_mode = 'S' AND expires_at > {now}""");
            // LEAST: a reader never outlives its name row, whose expiry stays the latest of its readers.
            // ? = name, owner, lease, name
            insertReader = returning(
                    """
                    INSERT INTO {readers} (lock_name, owner_id, expires_at, fencing_token)
                    VALUES (?, ?, LEAST({now+lease}, (SELECT l.expires_at FROM {locks} l WHERE l.lock_name = ?)),
                            {next_token})""");

            // Renew.
            // ? = lease, name, owner
            renewExclusive = returning(
                    """
                    UPDATE {locks} SET expires_at = {now+lease}
                    WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X' AND expires_at > {now}""");
            // ? = lease, then name and owner of each grant
            renewExclusiveIn = sql("UPDATE {locks} SET expires_at = {now+lease}"
                    + " WHERE lock_mode = 'X' AND expires_at > {now} AND (lock_name, owner_id) IN ");
            // ? = lease, name, name, owner
            renewReader = returning(
                    """
                    UPDATE {readers}
                    SET expires_at = LEAST({now+lease}, (SELECT l.expires_at FROM {locks} l WHERE l.lock_name = ?))
                    WHERE lock_name = ? AND owner_id = ? AND expires_at > {now}""");

            // Release.
            // ? = name, owner
            releaseExclusive =
                    notifying("DELETE FROM {locks} WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X'");
            // ? = name
            lockSharedRow = sql("SELECT lock_mode FROM {locks} WHERE lock_name = ? AND lock_mode = 'S' FOR UPDATE");
            // ? = name, owner
            deleteReader = sql("DELETE FROM {readers} WHERE lock_name = ? AND owner_id = ?");
            // ? = name
            deleteExpiredReaders = sql("DELETE FROM {readers} WHERE lock_name = ? AND expires_at <= {now}");
            // ? = name
            latestReaderExpiry = sql("SELECT MAX(expires_at) FROM {readers} WHERE lock_name = ?");
            // ? = name
            deleteSharedRow = notifying("DELETE FROM {locks} WHERE lock_name = ? AND lock_mode = 'S'");
            // ? = channel, name
            registerWaiter =
                    notifies ? sql("UPDATE {locks} SET waiter = ? WHERE lock_name = ? AND waiter IS NULL") : null;
            // ? = expiry, name
            setSharedExpiry = sql("UPDATE {locks} SET expires_at = ? WHERE lock_name = ? AND lock_mode = 'S'");

            // Diagnostics and schema.
            // ? = name
            inspect = sql(
                    """
                    SELECT l.lock_mode, l.owner_id, l.fencing_token, l.expires_at, r.owner_id, r.fencing_token
                    FROM {locks} l
                    LEFT JOIN {readers} r ON r.lock_name = l.lock_name AND l.lock_mode = 'S' AND r.expires_at > {now}
                    WHERE l.lock_name = ? AND l.expires_at > {now}
                    ORDER BY r.fencing_token""");
            probes = Map.of(
                    names.locks(),
                    sql("SELECT 1 FROM {locks} WHERE 1 = 0"),
                    names.readers(),
                    sql("SELECT 1 FROM {readers} WHERE 1 = 0"),
                    names.sequence(),
                    dialect.probeSequence(names.sequence()),
                    waiters.table,
                    sql("SELECT 1 FROM " + waiters.table + " WHERE 1 = 0"));
        }

        private String returning(String template) {
            return dialect.returning(sql(template), WRITTEN);
        }

        /**
         * A release DELETE; on PostgreSQL wrapped so that, for each row it deleted, it NOTIFYs the
         * registered waiter's channel if there is one (delivered when the transaction commits) and
         * returns one row.
         */
        private String notifying(String delete) {
            if (!notifies) {
                return sql(delete);
            }
            // Fair: the head of the line's client, which the lock now waits for (see WaiterStatements).
            String channel = fair ? waiters.notifyChannel("d") : "d.waiter";
            return sql("WITH d AS (" + delete + " RETURNING lock_name, waiter)"
                    + " SELECT (SELECT pg_notify(c.channel, d.lock_name) FROM (SELECT " + channel
                    + " AS channel) c WHERE c.channel IS NOT NULL) FROM d");
        }

        private String sql(String template) {
            return template.replace("{and_guard}", fair ? "AND {guard}" : "")
                    .replace("{guard}", waiters.guard())
                    .replace("{locks}", names.locks())
                    .replace("{readers}", names.readers())
                    .replace("{now+lease}", dialect.nowPlusMillis())
                    .replace("{now}", dialect.now())
                    .replace("{next_token}", dialect.nextToken(names.sequence()))
                    // A new holder: the clients still waiting register again on their next attempt.
                    .replace("{reset_waiter}", dialect == Dialect.POSTGRESQL ? ", waiter = NULL" : "");
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Schema and dialect, checked once

    /** The statements, once the dialect is known and the schema exists. */
    private Statements ready(String lockName) {
        return gate.pass(lockName, () -> {
            for (int attempt = 1; ; attempt++) {
                try (JdbcSession session = open(false)) {
                    Dialect d = dialect;
                    if (d == null) {
                        d = detect(session.connection, lockName);
                        dialect = d;
                    }
                    Statements sql = new Statements(d, names, fair);
                    ensureSchema(session.connection, d, sql, lockName);
                    int isolation = session.connection.getTransactionIsolation();
                    isolationToRestore = isolation == Connection.TRANSACTION_READ_COMMITTED ? -1 : isolation;
                    return sql;
                } catch (SQLException e) {
                    // Several clients checking and creating the schema at once can trip a database's
                    // catalogue (H2 answers a general error): look again a few times before giving up.
                    // Anything else (connection, authentication) is final at once.
                    if (attempt >= 3 || !"HY000".equals(e.getSQLState())) {
                        throw e;
                    }
                    log.debug(
                            "Baton lock '{}' on {}: schema check failed, retrying: {}", lockName, name(), e.toString());
                    java.util.concurrent.locks.LockSupport.parkNanos(
                            java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(20L * attempt));
                }
            }
        });
    }

    private Dialect detect(Connection connection, String lockName) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        return Dialect.ofProductName(product)
                .orElseThrow(() -> new LockConfigurationException("Baton lock '" + lockName + "' on " + STRATEGY_NAME
                        + ": the DataSource connects to " + product
                        + ", but the table strategy supports only H2 and PostgreSQL"));
    }

    private void ensureSchema(Connection connection, Dialect d, Statements sql, String lockName) throws SQLException {
        List<String> missing = missing(connection, sql);
        if (missing.isEmpty()) {
            return;
        }
        String ddl = d.ddl(names);
        if (!createSchema) {
            throw new LockConfigurationException("Baton lock '" + lockName + "' on " + name()
                    + ": the lock tables are missing " + missing + " and createSchema is false; run this DDL as"
                    + " a user allowed to create tables, or set createSchema=true:\n" + ddl);
        }
        log.info("Baton {}: creating the lock tables {}", name(), missing);
        SQLException firstFailure = null;
        for (String statement : statementsOf(ddl)) {
            try (Statement st = connection.createStatement()) {
                st.setQueryTimeout(queryTimeoutSeconds);
                st.execute(statement);
            } catch (SQLException e) {
                if (JdbcFailures.isConnection(e) || JdbcFailures.isTimeout(e)) {
                    throw e;
                }
                // Usually another client creating the same object at the same moment, despite IF NOT
                // EXISTS (PostgreSQL reports a duplicate key in its catalog, H2 a general error). The
                // probe below decides whether the schema is complete.
                log.debug(
                        "Baton {}: {} failed, checking whether another client created it: {}",
                        name(),
                        statement,
                        e.toString());
                if (firstFailure == null) {
                    firstFailure = e;
                }
            }
        }
        List<String> stillMissing = missing(connection, sql);
        if (!stillMissing.isEmpty()) {
            throw new LockConfigurationException(
                    "Baton lock '" + lockName + "' on " + name() + ": creating the lock tables " + stillMissing
                            + " failed"
                            + (firstFailure == null
                                    ? ""
                                    : ": " + JdbcFailures.explain(firstFailure, operationTimeout, names))
                            + "; run this DDL as a user allowed to create tables:\n" + ddl,
                    firstFailure);
        }
    }

    /** The objects whose probe fails because they do not exist. */
    private List<String> missing(Connection connection, Statements sql) throws SQLException {
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, String> probe : sql.probes.entrySet()) {
            try (Statement st = connection.createStatement()) {
                st.setQueryTimeout(queryTimeoutSeconds);
                st.executeQuery(probe.getValue()).close();
            } catch (SQLException e) {
                if (!JdbcFailures.isMissingObject(e)) {
                    throw e;
                }
                missing.add(probe.getKey());
            }
        }
        missing.sort(null);
        return missing;
    }

    /** The DDL file split into statements, without comments. */
    static List<String> statementsOf(String ddl) {
        StringBuilder code = new StringBuilder();
        for (String line : ddl.split("\n")) {
            int comment = line.indexOf("--");
            code.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
        }
        List<String> statements = new ArrayList<>();
        for (String statement : code.toString().split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement.strip());
            }
        }
        return statements;
    }

    private LockUnavailableException failure(String lockName, String action, SQLException e) {
        return gate.failure(lockName, action, e);
    }

    // ---------------------------------------------------------------------------------------------
    // Connections

    /**
     * Borrows a connection. A pending interrupt is set aside while the operation runs and restored
     * when the session closes: pools abandon a wait for a connection when the thread is interrupted,
     * but every operation is short and bounded by the operation timeout, so it finishes and the caller
     * (the core's interruptible wait) sees the interrupt right after.
     */
    /**
     * One borrowed connection (see {@link JdbcSession}), in one READ COMMITTED transaction or in
     * auto-commit mode; the isolation the DataSource hands out is known from the first check.
     */
    private JdbcSession open(boolean transaction) throws SQLException {
        return JdbcSession.open(dataSource, ownedPool, queryTimeoutSeconds, transaction, isolationToRestore);
    }

    /** Runs a "returns" statement; the row written, if any. */
    private static Optional<Written> written(JdbcSession tx, String sql, Object... params) throws SQLException {
        return tx.first(sql, rs -> new Written(rs.getLong(1), JdbcSession.instant(rs, 2)), params);
    }
}
