package dev.baton.jdbc;

import dev.baton.LockConfigurationException;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockInfo;
import dev.baton.spi.LockMode;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

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
 * <p>Compared with the table strategy it never inserts or deletes on the hot path (rows stay), so
 * there is no index churn, and every step is one short statement without row-lock waits in the
 * exclusive case; contenders that lose a CAS poll again.
 */
final class OptimisticLockBackend implements LockBackend {
    private final DataSource dataSource;
    private final ReconnectingPool ownedPool;
    private final TableNames names;
    private final boolean createSchema;
    private final int timeout;
    private volatile Dialect dialect;
    /** Passed with the statements, once the dialect is known and the schema exists. */
    private final SchemaGate<Statements> gate;

    private final BatchRenewal batchRenewal;
    /** LISTEN/NOTIFY wake-ups on PostgreSQL; unsupported (waiters poll) on H2 and MariaDB. */
    private final PgNotifications notifications;
    /** Semaphore permits, in tables of their own. */
    private final JdbcPermits permits;
    /** Whether a queued waiter comes before a re-acquire (see {@link WaiterStatements}). */
    private final boolean fair;
    /** The line of waiters when fair, which wraps {@link #notifications}; null when barging. */
    private final FairQueue queue;

    OptimisticLockBackend(
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
        this.timeout = TableLockBackend.queryTimeoutSeconds(operationTimeout);
        this.ownedPool = ownedPool;
        this.gate = new SchemaGate<>(this::name, operationTimeout, names);
        this.batchRenewal = new BatchRenewal(
                () -> JdbcSession.open(dataSource, ownedPool, timeout, false),
                grant -> ready(grant.name()).renewExclusiveIn,
                grant -> List.of(grant.name(), grant.fencingToken(), grant.ownerId()),
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
                        () -> JdbcSession.open(dataSource, ownedPool, timeout, false),
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
     * {@link PgNotifications}); on H2 and MariaDB waiters poll.
     */
    @Override
    public ReleaseNotifications releaseNotifications() {
        return fair ? queue : notifications;
    }

    /** Runs a release UPDATE; on PostgreSQL its notifying form, which returns one row per row changed. */
    private static int released(JdbcSession db, Statements sql, String statement, Object... params)
            throws SQLException {
        return sql.notifies ? db.all(statement, TableLockBackend::countRows, params) : db.update(statement, params);
    }

    @Override
    public String name() {
        Dialect known = dialect;
        String base = Strategy.OPTIMISTIC.backendName();
        return known == null ? base : base + " (" + known.displayName() + ")";
    }

    // ---------------------------------------------------------------------------------------------
    // The protocol

    /** The name row as read before a CAS. */
    private record Row(long version, char mode, boolean expired) {
        boolean free() {
            return mode == '-' || expired;
        }
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        if (JdbcPermits.isPermit(request)) {
            return permits.tryAcquire(request);
        }
        Statements sql = ready(request.name());
        long lease = leaseMillis(request.leaseTime());
        boolean shared = request.mode() == LockMode.SHARED;
        try (JdbcSession db = JdbcSession.open(dataSource, ownedPool, timeout, shared)) {
            Optional<Row> row = db.first(
                    sql.read,
                    rs -> new Row(rs.getLong(1), rs.getString(2).charAt(0), rs.getInt(3) == 1),
                    request.name());
            long token;
            if (row.isEmpty()) {
                if (!db.insertIfAbsent(
                        sql.insertRow,
                        guarded(request, request.name(), shared ? "S" : "X", shared ? "" : request.ownerId(), lease))) {
                    return busy(db, sql, request.name(), shared); // another client inserted it first and holds it
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
                                            guarded(request, request.ownerId(), lease, request.name(), r.version()))
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
                    return busy(db, sql, request.name(), shared);
                }
            }
            if (shared) {
                db.update(sql.insertReader, request.name(), request.ownerId(), lease, token);
                db.commit();
            }
            return Optional.of(
                    new Grant(request.name(), request.ownerId(), request.mode(), token, expiry(lease), null));
        } catch (SQLException e) {
            if (JdbcFailures.isConflict(e)) {
                return Optional.empty(); // a concurrent transaction: busy now, the core polls again
            }
            throw failure(request.name(), "acquire", e);
        }
    }

    /** A granting statement's parameters, followed by its guard's when fair. */
    private Object[] guarded(LockRequest request, Object... params) {
        return fair ? WaiterStatements.with(params, request.name(), request.ownerId()) : params;
    }

    /**
     * A failed attempt: on PostgreSQL, with the listener up, asks the holder's release to NOTIFY this
     * client unless another client already asked (the next grant clears the request).
     */
    private Optional<Grant> busy(JdbcSession db, Statements sql, String name, boolean inTransaction)
            throws SQLException {
        if (sql.notifies && notifications.registerWaiters()) {
            db.update(sql.registerWaiter, notifications.channel(), name);
            if (inTransaction) {
                db.commit();
            }
        }
        return Optional.empty();
    }

    /**
     * The expiry reported in a grant. Informational only (the core judges validity on its own clock
     * and the database on its own); computed here because MariaDB cannot return what an UPDATE wrote.
     */
    private static Instant expiry(long leaseMillis) {
        return Instant.now().plusMillis(leaseMillis);
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        if (JdbcPermits.isPermit(grant)) {
            return permits.renew(grant, leaseTime);
        }
        Statements sql = ready(grant.name());
        long lease = leaseMillis(leaseTime);
        boolean shared = grant.mode() == LockMode.SHARED;
        try (JdbcSession db = JdbcSession.open(dataSource, ownedPool, timeout, shared)) {
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
            return Optional.of(grant.withExpiresAt(expiry(lease)));
        } catch (SQLException e) {
            throw failure(grant.name(), "renew", e);
        }
    }

    /**
     * Exclusive grants in one statement per call ({@link BatchRenewal}), matched by name, version
     * and owner; shared ones one by one; permits in one statement of their own ({@link JdbcPermits}).
     */
    @Override
    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        return permits.renewAll(grants, leaseTime, batchRenewal::renewAll);
    }

    /** Up to {@link BatchRenewal#SIZE} exclusive grants per statement. */
    @Override
    public int renewalBatchSize() {
        return BatchRenewal.SIZE;
    }

    @Override
    public boolean release(Grant grant) {
        if (JdbcPermits.isPermit(grant)) {
            return permits.release(grant);
        }
        return release(grant.name(), grant.ownerId(), grant.mode(), grant.fencingToken());
    }

    @Override
    public void abandon(LockRequest request) {
        if (JdbcPermits.isPermit(request)) {
            permits.abandon(request);
            return;
        }
        release(request.name(), request.ownerId(), request.mode(), 0);
    }

    /** {@code version} 0 means unknown (an abandoned attempt): the owner id alone identifies it. */
    private boolean release(String name, String ownerId, LockMode mode, long version) {
        Statements sql = ready(name);
        boolean shared = mode == LockMode.SHARED;
        try (JdbcSession db = JdbcSession.open(dataSource, ownedPool, timeout, shared)) {
            if (!shared) {
                return version == 0
                        ? released(db, sql, sql.releaseExclusiveByOwner, name, ownerId) == 1
                        : released(db, sql, sql.releaseExclusive, name, version, ownerId) == 1;
            }
            // Name row first (the lock order of every shared transaction), then the reader rows.
            boolean sharedRow = db.update(sql.lockSharedRow, name) == 1;
            boolean wasReader = db.update(sql.deleteReader, name, ownerId) == 1;
            if (sharedRow && wasReader && db.update(sql.setSharedExpiry, name, name, name) == 0) {
                released(db, sql, sql.freeShared, name); // no live reader left: notifies on PostgreSQL
                db.update(sql.deleteReaders, name);
            }
            db.commit();
            return sharedRow && wasReader;
        } catch (SQLException e) {
            throw failure(name, "release", e);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        Statements sql = ready(name);
        try (JdbcSession db = JdbcSession.open(dataSource, ownedPool, timeout, false)) {
            Dialect d = dialect;
            return db.all(sql.inspect, rs -> toLockInfo(d, name, rs), name);
        } catch (SQLException e) {
            throw failure(name, "inspect", e);
        }
    }

    private static Optional<LockInfo> toLockInfo(Dialect dialect, String name, ResultSet rs) throws SQLException {
        List<String> readers = new ArrayList<>();
        long token = Long.MIN_VALUE;
        Instant expiresAt = null;
        while (rs.next()) {
            expiresAt = dialect.instant(rs, 4);
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

    static long leaseMillis(Duration leaseTime) {
        long max = Duration.ofDays(36_500).toMillis();
        long nanos;
        try {
            nanos = leaseTime.toNanos();
        } catch (ArithmeticException tooLong) {
            return max;
        }
        return Math.min(max, Math.max(1, (nanos + 999_999) / 1_000_000));
    }

    // ---------------------------------------------------------------------------------------------
    // The statements

    /**
     * Every statement of the protocol, built once per dialect. {@code {opt}}, {@code {readers}},
     * {@code {now}} and {@code {now+lease}} (the lease bound in milliseconds) are filled in; the
     * comment above each statement lists its parameters.
     */
    static final class Statements {
        private final Dialect dialect;
        private final TableNames names;
        final String read;
        final String insertRow;
        final String casExclusive;
        final String casShared;
        final String casJoinShared;
        final String deleteReaders;
        final String insertReader;
        final String renewExclusive;
        /** The batch renewal up to its IN list; ? = lease, then each grant's key ({@link BatchRenewal}). */
        final String renewExclusiveIn;

        final String extendShared;
        final String renewReader;
        final String releaseExclusive;
        final String releaseExclusiveByOwner;
        final String lockSharedRow;
        final String deleteReader;
        final String freeShared;
        final String setSharedExpiry;
        final String inspect;
        /** Whether the release statements notify waiters (PostgreSQL) and so return rows. */
        final boolean notifies;
        /** PostgreSQL: registers a client's channel as the row's waiter if none is; null elsewhere. */
        final String registerWaiter;
        /** The fair hand-off's statements; its guard is in the granting statements when fair. */
        final WaiterStatements waiters;
        /** The names among a list that are held; up to the IN list ({@link FairQueue}). */
        final String heldIn;

        private final boolean fair;

        Statements(Dialect dialect, TableNames names, boolean fair) {
            this.dialect = dialect;
            this.names = names;
            this.fair = fair;
            this.waiters = new WaiterStatements(dialect, names.locks() + "_opt_waiters");
            this.heldIn = sql(
                    "SELECT lock_name FROM {opt} WHERE lock_mode <> '-' AND expires_at > {now}" + " AND lock_name IN ");
            // ? = name
            read = sql("SELECT version, lock_mode, CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END FROM {opt}"
                    + " WHERE lock_name = ?");
            // Fair: each statement that can grant a free lock also requires that no live waiter other
            // than the requester is ahead of it (the guard, see WaiterStatements), still one statement.
            // ? = name, mode, owner, lease [, the guard's]
            insertRow = dialect.insertIfAbsent(
                    fair
                            ? sql("INSERT INTO {opt} (lock_name, version, lock_mode, owner_id, expires_at)"
                                    + " SELECT " + waiters.param("VARCHAR(512)") + ", 1, "
                                    + waiters.param("CHAR(1)") + ", " + waiters.param("VARCHAR(64)")
                                    + ", {now+lease}" + waiters.fromDual + " WHERE {guard}")
                            : sql("INSERT INTO {opt} (lock_name, version, lock_mode, owner_id, expires_at)"
                                    + " VALUES (?, 1, ?, ?, {now+lease})"),
                    "lock_name");
            // ? = owner, lease, name, version read [, the guard's]
            casExclusive = sql("UPDATE {opt} SET version = version + 1, lock_mode = 'X', owner_id = ?,"
                    + " expires_at = {now+lease}{reset_waiter} WHERE lock_name = ? AND version = ? {and_guard}");
            // ? = lease, name, version read [, the guard's]
            casShared = sql("UPDATE {opt} SET version = version + 1, lock_mode = 'S', owner_id = '',"
                    + " expires_at = {now+lease}{reset_waiter} WHERE lock_name = ? AND version = ? {and_guard}");
            // ? = lease, name, version read
            casJoinShared = sql("UPDATE {opt} SET version = version + 1,"
                    + " expires_at = GREATEST(expires_at, {now+lease}) WHERE lock_name = ? AND version = ?");
            // ? = name
            deleteReaders = sql("DELETE FROM {readers} WHERE lock_name = ?");
            // ? = name, owner, lease, token
            insertReader = sql("INSERT INTO {readers} (lock_name, owner_id, expires_at, fencing_token)"
                    + " VALUES (?, ?, {now+lease}, ?)");
            // ? = lease, name, version, owner
            renewExclusive = sql("UPDATE {opt} SET expires_at = {now+lease} WHERE lock_name = ? AND version = ?"
                    + " AND owner_id = ? AND lock_mode = 'X' AND expires_at > {now}");
            // ? = lease, then name, version and owner of each grant
            renewExclusiveIn = sql("UPDATE {opt} SET expires_at = {now+lease}"
                    + " WHERE lock_mode = 'X' AND expires_at > {now} AND (lock_name, version, owner_id) IN ");
            // ? = lease, name
            extendShared = sql("UPDATE {opt} SET expires_at = GREATEST(expires_at, {now+lease})"
                    + " WHERE lock_name = ? AND lock_mode = 'S' AND expires_at > {now}");
            // ? = lease, name, owner
            renewReader = sql("UPDATE {readers} SET expires_at = {now+lease} WHERE lock_name = ? AND owner_id = ?"
                    + " AND expires_at > {now}");
            notifies = dialect == Dialect.POSTGRESQL;
            // ? = channel, name
            registerWaiter =
                    notifies ? sql("UPDATE {opt} SET waiter = ? WHERE lock_name = ? AND waiter IS NULL") : null;
            // ? = name, version, owner
            releaseExclusive = notifying("UPDATE {opt} SET version = version + 1, lock_mode = '-', owner_id = '',"
                    + " expires_at = {now} WHERE lock_name = ? AND version = ? AND owner_id = ? AND lock_mode = 'X'");
            // ? = name, owner
            releaseExclusiveByOwner =
                    notifying("UPDATE {opt} SET version = version + 1, lock_mode = '-', owner_id = '',"
                            + " expires_at = {now} WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X'");
            // ? = name; takes the name row's lock for the rest of the transaction
            lockSharedRow = sql("UPDATE {opt} SET version = version WHERE lock_name = ? AND lock_mode = 'S'");
            // ? = name, owner
            deleteReader = sql("DELETE FROM {readers} WHERE lock_name = ? AND owner_id = ?");
            // ? = name; a new version, so that a reader's CAS on the old one fails
            freeShared = notifying("UPDATE {opt} SET version = version + 1, lock_mode = '-', expires_at = {now}"
                    + " WHERE lock_name = ?");
            // ? = name, name, name; 0 rows when no live reader is left
            setSharedExpiry = sql("UPDATE {opt} SET expires_at = (SELECT MAX(r.expires_at) FROM {readers} r"
                    + " WHERE r.lock_name = ? AND r.expires_at > {now}) WHERE lock_name = ? AND EXISTS"
                    + " (SELECT 1 FROM {readers} r WHERE r.lock_name = ? AND r.expires_at > {now})");
            // ? = name
            inspect = sql(
                    """
                    SELECT o.lock_mode, o.owner_id, o.version, o.expires_at, r.owner_id, r.fencing_token
                    FROM {opt} o
                    LEFT JOIN {readers} r ON r.lock_name = o.lock_name AND o.lock_mode = 'S' AND r.expires_at > {now}
                    WHERE o.lock_name = ? AND o.lock_mode <> '-' AND o.expires_at > {now}
                    ORDER BY r.fencing_token""");
        }

        List<String> tables() {
            return List.of(names.locks() + "_opt", names.locks() + "_opt_readers", waiters.table);
        }

        /**
         * A release UPDATE; on PostgreSQL wrapped so that it also runs {@code pg_notify} for each row it
         * changed (delivered when the transaction commits) and returns one row per row changed.
         */
        private String notifying(String update) {
            if (!notifies) {
                return sql(update);
            }
            // RETURNING yields the row as updated; releases leave waiter alone, so it is the request.
            // Fair: the head of the line's client, which the lock now waits for (see WaiterStatements).
            String channel = fair ? waiters.notifyChannel("u") : "u.waiter";
            return sql("WITH u AS (" + update + " RETURNING lock_name, waiter)"
                    + " SELECT (SELECT pg_notify(c.channel, u.lock_name) FROM (SELECT " + channel
                    + " AS channel) c WHERE c.channel IS NOT NULL) FROM u");
        }

        private String sql(String template) {
            // A new holder clears the waiter request: clients still waiting register again on their
            // next attempt.
            return template.replace("{and_guard}", fair ? "AND {guard}" : "")
                    .replace("{guard}", waiters.guard())
                    .replace("{reset_waiter}", dialect == Dialect.POSTGRESQL ? ", waiter = NULL" : "")
                    .replace("{opt}", names.locks() + "_opt")
                    .replace("{readers}", names.locks() + "_opt_readers")
                    .replace("{now+lease}", dialect.nowPlusMillis())
                    .replace("{now}", dialect.now());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Schema and dialect, checked once

    private Statements ready(String lockName) {
        return gate.pass(lockName, () -> {
            try (JdbcSession db = JdbcSession.open(dataSource, ownedPool, timeout, false)) {
                Dialect d = dialect;
                if (d == null) {
                    d = detect(db, lockName, Strategy.OPTIMISTIC);
                    dialect = d;
                }
                Statements sql = new Statements(d, names, fair);
                JdbcSchema.ensure(
                        db.connection,
                        JdbcSchema.ddl(Strategy.OPTIMISTIC, d, names),
                        sql.tables(),
                        createSchema,
                        timeout,
                        "Baton lock '" + lockName + "' on " + name());
                return sql;
            }
        });
    }

    /** The dialect of an application's DataSource, checked against the strategy. */
    static Dialect detect(JdbcSession db, String lockName, Strategy strategy) throws SQLException {
        String product = db.connection.getMetaData().getDatabaseProductName();
        String where = "Baton lock '" + lockName + "' on " + strategy.backendName();
        Dialect d = Dialect.ofProductName(product)
                .orElseThrow(() -> new LockConfigurationException(where + ": the DataSource connects to " + product
                        + ", which the " + strategy.key() + " strategy does not support"));
        strategy.require(d, where);
        return d;
    }

    private LockUnavailableException failure(String lockName, String action, SQLException e) {
        return gate.failure(lockName, action, e);
    }
}
