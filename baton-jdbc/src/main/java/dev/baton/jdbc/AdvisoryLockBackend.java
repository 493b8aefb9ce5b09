package dev.baton.jdbc;

import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockKind;
import dev.baton.spi.LockMode;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code advisory} strategy on PostgreSQL: a session advisory lock ({@code
 * pg_try_advisory_lock}, {@code pg_try_advisory_lock_shared} for read locks) held on a connection
 * that is pinned to the grant for the whole lease ({@link Grant#backendState()}). Waiters queue in
 * PostgreSQL's lock manager ({@code pg_advisory_lock} bounded by {@code lock_timeout}, see {@link
 * #acquire}), so a release hands the lock over at once and in queue order.
 *
 * <p>Protocol, one round trip each:
 *
 * <ul>
 *   <li>Acquire: on a borrowed connection, one statement takes the advisory lock and, only if it got
 *       it, sets the session's {@code idle_session_timeout} to the lease time and draws the fencing
 *       token from the sequence {@code <table>_adv_seq}. The token is drawn while the lock is held,
 *       so tokens strictly increase per name. A sequence writes no row and needs no commit flush
 *       (it logs once per 32 values, ahead of them, so a crash never repeats a token), so a grant
 *       costs the database little more than the advisory lock itself. Not granted: the connection
 *       goes back.
 *   <li>Renew: sets {@code idle_session_timeout} again on the pinned connection, which proves the
 *       session (and so the lock) is still alive. A broken connection means the session and its
 *       lock are gone: the lease is reported lost.
 *   <li>Release: unlocks and restores {@code idle_session_timeout} in one statement, then returns the
 *       connection to the pool. Any failure on a pinned connection discards it (evicted from Baton's
 *       pool, aborted in an application's), which ends the session and so frees the lock: a
 *       connection never goes back to a pool with a lock still held.
 * </ul>
 *
 * <p>Expiry: the lock lives as long as its session. A client that vanishes without closing its
 * socket (partition, frozen VM) leaves the session idle, and PostgreSQL (14+) ends it after {@code
 * idle_session_timeout}, that is after one lease time; a client that dies closes the socket and the
 * lock goes at once.
 *
 * <p>Keys: advisory locks are keyed by a 64-bit integer, the first 8 bytes of SHA-256 over {@code
 * <table>:<name>}. Two names collide with probability 2<sup>-64</sup>; among n names in use at once
 * the chance that any two collide is about n<sup>2</sup>/2<sup>65</sup> (one in 3.7·10<sup>10</sup>
 * for a million names). A collision never breaks mutual exclusion: it only makes two names exclude
 * each other. The application's own advisory locks share the key space; the table name in the hash
 * keeps them apart unless the application hashes the same way.
 *
 * <p>Does not work behind a transaction-pooling PgBouncer: the session would not stay with the
 * client.
 */
final class AdvisoryLockBackend implements LockBackend {
    private static final Logger log = LoggerFactory.getLogger(AdvisoryLockBackend.class);
    /** idle_session_timeout is an int of milliseconds; longer leases disable it (0). */
    private static final long MAX_IDLE_MILLIS = Integer.MAX_VALUE;
    /**
     * The expiry (database clock plus the lease bound as a parameter) in epoch milliseconds, rounded
     * down (a little early is safe): reading a number costs the driver far less than a timestamp.
     */
    static final String EXPIRY_MILLIS = "floor(date_part('epoch', clock_timestamp()) * 1000)::bigint + ?";

    private final DataSource dataSource;
    private final ReconnectingPool ownedPool;
    private final TableNames names;
    private final boolean createSchema;
    private final int timeout;
    private final SchemaGate<Boolean> gate;
    private final String acquireExclusive;
    private final String acquireShared;
    private final String unlockExclusive;
    private final String unlockShared;
    private final String waitExclusive;
    private final String waitShared;
    private final StatementWait waits;
    /** Semaphore permits, in tables of their own; their waiters poll, woken by notifications. */
    private final JdbcPermits permits;

    private final PgNotifications notifications;

    AdvisoryLockBackend(
            DataSource dataSource,
            TableNames names,
            boolean createSchema,
            Duration operationTimeout,
            ReconnectingPool ownedPool) {
        this.dataSource = dataSource;
        this.names = names;
        this.createSchema = createSchema;
        this.timeout = TableLockBackend.queryTimeoutSeconds(operationTimeout);
        this.ownedPool = ownedPool;
        this.gate = new SchemaGate<>(this::name, operationTimeout, names);
        String sequence = sequence();
        // ? = key, idle timeout (text), lease millis. The CTE runs first (and reads the session's
        // idle_session_timeout before it is changed); the SELECT yields a row, and set_config and
        // nextval run, only when the lock was taken.
        String acquire =
                """
                WITH l AS (SELECT %s(?) AS ok, current_setting('idle_session_timeout') AS idle_before)
                SELECT nextval('%s'), %s, idle_before
                FROM l WHERE l.ok AND set_config('idle_session_timeout', ?, false) IS NOT NULL""";
        this.acquireExclusive = acquire.formatted("pg_try_advisory_lock", sequence, EXPIRY_MILLIS);
        this.acquireShared = acquire.formatted("pg_try_advisory_lock_shared", sequence, EXPIRY_MILLIS);
        // ? = key, the idle_session_timeout the session had: the connection goes back as it came.
        String unlock = "SELECT %s(?), set_config('idle_session_timeout', ?, false)";
        this.unlockExclusive = unlock.formatted("pg_advisory_unlock");
        this.unlockShared = unlock.formatted("pg_advisory_unlock_shared");
        // The queued wait and, once granted, the token, in one round trip (a hand-off to the next
        // waiter then costs one statement). MATERIALIZED: the timeout is set before the lock waits,
        // and the lock is held before the token is drawn. The idle bound is read before it changes.
        // ? = lock_timeout millis (text), key, idle timeout (text), lease millis.
        String wait =
                """
                WITH t AS MATERIALIZED (SELECT set_config('lock_timeout', ?, true) AS lt),
                l AS MATERIALIZED (SELECT %s(?)::text AS held, current_setting('idle_session_timeout') AS idle_before
                                   FROM t)
                SELECT nextval('%s'), %s, idle_before
                FROM l WHERE set_config('idle_session_timeout', ?, false) IS NOT NULL""";
        this.waitExclusive = wait.formatted("pg_advisory_lock", sequence, EXPIRY_MILLIS);
        this.waitShared = wait.formatted("pg_advisory_lock_shared", sequence, EXPIRY_MILLIS);
        this.waits = new StatementWait("baton-jdbc-advisory-wait", name(), operationTimeout.toMillis());
        this.notifications = new PgNotifications(this::name, dataSource, ownedPool, operationTimeout, () -> true);
        this.permits = new JdbcPermits(
                this::name,
                dataSource,
                ownedPool,
                names,
                createSchema,
                operationTimeout,
                name -> {
                    ready(name);
                    return Dialect.POSTGRESQL;
                },
                notifications);
    }

    /** The fencing-token sequence, {@code <table>_adv_seq}. */
    private String sequence() {
        return names.locks() + "_adv_seq";
    }

    @Override
    public String name() {
        return Strategy.ADVISORY.backendName() + " (PostgreSQL)";
    }

    /** The 64-bit advisory key of a lock name; see the class comment for the collision risk. */
    static long key(TableNames names, String lockName) {
        MessageDigest sha = SHA256.get();
        sha.reset();
        byte[] digest = sha.digest((names.locks() + ":" + lockName).getBytes(StandardCharsets.UTF_8));
        return ByteBuffer.wrap(digest, 0, 8).getLong();
    }

    /** One digest per thread: looking one up costs more than the hash itself on a hot acquire path. */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    });

    /** The pinned session of one grant, with its advisory key and the idle bound to restore. */
    private static final class Pinned extends PinnedSession {
        final long key;
        final String idleBefore;

        Pinned(Connection connection, ReconnectingPool ownedPool, long key, String idleBefore) {
            super(connection, ownedPool);
            this.key = key;
            this.idleBefore = idleBefore;
        }
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        if (JdbcPermits.isPermit(request)) {
            return permits.tryAcquire(request);
        }
        ready(request.name());
        long key = key(names, request.name());
        long lease = OptimisticLockBackend.leaseMillis(request.leaseTime());
        Connection connection = borrow(request.name());
        boolean keep = false;
        try {
            Optional<Grant> grant = tryOn(connection, request, key, lease);
            keep = grant.isPresent();
            return grant;
        } catch (SQLException e) {
            // The lock may have been taken before the failure: end the session so it cannot linger.
            JdbcSession.discard(connection, ownedPool);
            connection = null;
            if (JdbcFailures.isConflict(e)) {
                return Optional.empty();
            }
            throw failure(request.name(), "acquire", e);
        } finally {
            if (!keep && connection != null) {
                giveBack(connection);
            }
        }
    }

    /** A connection of its own for one attempt, taken out of the session (it may be pinned). */
    private Connection borrow(String lockName) {
        try (JdbcSession db = JdbcSession.open(dataSource, ownedPool, timeout, false)) {
            return db.detach();
        } catch (SQLException e) {
            throw failure(lockName, "acquire", e);
        }
    }

    /** One round trip: the lock if it is free now, with its token; empty (nothing changed) if busy. */
    private Optional<Grant> tryOn(Connection connection, LockRequest request, long key, long lease)
            throws SQLException {
        try (PreparedStatement ps =
                connection.prepareStatement(request.mode() == LockMode.SHARED ? acquireShared : acquireExclusive)) {
            ps.setQueryTimeout(timeout);
            ps.setLong(1, key);
            ps.setLong(2, lease);
            ps.setString(3, String.valueOf(idleMillis(lease)));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Grant(
                        request.name(),
                        request.ownerId(),
                        request.mode(),
                        rs.getLong(1),
                        Instant.ofEpochMilli(rs.getLong(2)),
                        new Pinned(connection, ownedPool, key, rs.getString(3))));
            }
        }
    }

    @Override
    public boolean queuesWaiters() {
        return true;
    }

    /** Lock waiters queue in the lock manager; permit waiters poll ({@link JdbcPermits}). */
    @Override
    public boolean queuesWaiters(LockKind kind) {
        return kind != LockKind.PERMIT;
    }

    /** Permits live in tables of their own ({@link JdbcPermits}): advisory locks cannot count. */
    @Override
    public boolean supportsPermits() {
        return true;
    }

    /** Used by permit waiters only (lock waiters queue). */
    @Override
    public ReleaseNotifications releaseNotifications() {
        return notifications;
    }

    /**
     * Waits in PostgreSQL's own lock queue: {@code pg_advisory_lock} ({@code _shared} for readers) on
     * the waiter's own connection, bounded by a transaction-local {@code lock_timeout} of the remaining
     * time (slices of {@link StatementWait#SLICE_MILLIS} for an unlimited wait, so a dead server is noticed), so a
     * release hands the lock over at once and in queue order. The same statement then, holding the
     * lock, draws the token as in {@link #tryAcquire}, so a hand-off costs the next holder no further
     * round trip. An interrupted waiter's statement is cancelled; a lock granted
     * in the same instant is unlocked again; either way the connection goes back without a lock, an
     * open transaction or a changed setting, or is discarded when its state is unknown.
     */
    @Override
    public Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        if (timeoutNanos == 0 || JdbcPermits.isPermit(request)) {
            return tryAcquire(request);
        }
        ready(request.name());
        long key = key(names, request.name());
        long lease = OptimisticLockBackend.leaseMillis(request.leaseTime());
        boolean shared = request.mode() == LockMode.SHARED;
        Connection connection = borrow(request.name());
        boolean keep = false;
        try {
            // Uncontended, the one-round-trip try is all it takes; only a busy lock joins the queue.
            Optional<Grant> now = tryOn(connection, request, key, lease);
            if (now.isPresent()) {
                keep = true;
                return now;
            }
            long deadline = System.nanoTime() + timeoutNanos;
            while (true) {
                long waitMillis = StatementWait.nextWaitMillis(timeoutNanos, deadline);
                if (waitMillis == 0) {
                    return Optional.empty();
                }
                Connection c = connection;
                Optional<Grant> granted = waits.run(
                        c, waitMillis, request.name(), () -> lockWaiting(c, request, key, lease, waitMillis), grant -> {
                            if (grant.isPresent()) {
                                unlock(c, shared, key, ((Pinned) grant.get().backendState()).idleBefore);
                            }
                        });
                if (granted.isPresent()) {
                    keep = true;
                    return granted;
                }
                if (timeoutNanos > 0) {
                    return Optional.empty();
                }
                if (gate.isClosed()) {
                    throw new LockUnavailableException("Baton lock '" + request.name() + "' on " + name()
                            + ": the client was closed while waiting; create a new client to take locks");
                }
            }
        } catch (StatementWait.Interrupted e) {
            if (!e.connectionUsable) {
                JdbcSession.discard(connection, ownedPool);
                connection = null;
            }
            throw e;
        } catch (SQLException e) {
            // The lock may be held (the token statement failed): end the session so it cannot linger.
            JdbcSession.discard(connection, ownedPool);
            connection = null;
            throw failure(request.name(), "acquire", e);
        } finally {
            if (!keep && connection != null) {
                giveBack(connection);
            }
        }
    }

    /**
     * One bounded wait in the database's queue and, once granted, the token: the grant, or empty when
     * {@code lock_timeout} ended the wait (SQLState 55P03). The timeout is transaction-local and the
     * statement runs in its own (auto-commit) transaction, so nothing needs restoring; the lock, being
     * a session lock, outlives that transaction. A statement that fails (the timeout, a cancel, a
     * failed token draw) may have taken the lock before failing, and a session lock survives the
     * rollback: it is given back at once ({@code pg_advisory_unlock} of a lock not held only warns),
     * and if even that fails the connection is aborted, so that it never goes back holding it.
     */
    private Optional<Grant> lockWaiting(
            Connection connection, LockRequest request, long key, long lease, long waitMillis) throws SQLException {
        boolean shared = request.mode() == LockMode.SHARED;
        try (PreparedStatement ps = connection.prepareStatement(shared ? waitShared : waitExclusive)) {
            // No JDBC query timeout: lock_timeout bounds the wait, and the caller cancels it otherwise.
            ps.setString(1, String.valueOf(waitMillis));
            ps.setLong(2, key);
            ps.setLong(3, lease);
            ps.setString(4, String.valueOf(idleMillis(lease)));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("the wait statement returned no row", "XX000");
                }
                return Optional.of(new Grant(
                        request.name(),
                        request.ownerId(),
                        request.mode(),
                        rs.getLong(1),
                        Instant.ofEpochMilli(rs.getLong(2)),
                        new Pinned(connection, ownedPool, key, rs.getString(3))));
            }
        } catch (SQLException e) {
            try {
                unlockIfHeld(connection, shared, key);
            } catch (SQLException undo) {
                e.addSuppressed(undo);
                try {
                    connection.abort(Runnable::run);
                } catch (SQLException | RuntimeException aborting) {
                    e.addSuppressed(aborting);
                }
                throw e;
            }
            if ("55P03".equals(e.getSQLState())) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Gives back the lock if this session holds it; a no-op (and a server warning) otherwise. */
    private void unlockIfHeld(Connection connection, boolean shared, long key) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                shared ? "SELECT pg_advisory_unlock_shared(?)" : "SELECT pg_advisory_unlock(?)")) {
            ps.setQueryTimeout(timeout);
            ps.setLong(1, key);
            ps.executeQuery().close();
        }
    }

    /** Gives back a lock that a cancelled wait got anyway, with the idle bound the session had. */
    private void unlock(Connection connection, boolean shared, long key, String idleBefore) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(shared ? unlockShared : unlockExclusive)) {
            ps.setQueryTimeout(timeout);
            ps.setLong(1, key);
            ps.setString(2, idleBefore);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || !rs.getBoolean(1)) {
                    throw new SQLException("the advisory lock granted during a cancel was not held", "55000");
                }
            }
        }
    }

    /** Returns an unpinned connection (no lock taken, timeout untouched) to the pool. */
    private void giveBack(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            log.debug("Baton {}: returning a connection failed: {}", name(), e.toString());
        }
    }

    private static long idleMillis(long leaseMillis) {
        return leaseMillis > MAX_IDLE_MILLIS ? 0 : leaseMillis;
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        if (JdbcPermits.isPermit(grant)) {
            return permits.renew(grant, leaseTime);
        }
        long lease = OptimisticLockBackend.leaseMillis(leaseTime);
        return ((Pinned) grant.backendState())
                .renew(
                        grant,
                        name(),
                        connection -> {
                            try (PreparedStatement ps =
                                    connection.prepareStatement("SELECT set_config('idle_session_timeout', ?, false),"
                                            + " clock_timestamp() + (? * INTERVAL '1 millisecond')")) {
                                ps.setQueryTimeout(timeout);
                                ps.setString(1, String.valueOf(idleMillis(lease)));
                                ps.setLong(2, lease);
                                try (ResultSet rs = ps.executeQuery()) {
                                    rs.next();
                                    return Optional.of(grant.withExpiresAt(JdbcSession.instant(rs, 2)));
                                }
                            }
                        },
                        e -> failure(grant.name(), "renew", e));
    }

    @Override
    public boolean release(Grant grant) {
        if (JdbcPermits.isPermit(grant)) {
            return permits.release(grant);
        }
        if (!(grant.backendState() instanceof Pinned pinned)) {
            return false; // an abandoned attempt: tryAcquire already ended its session
        }
        return pinned.release(
                connection -> {
                    try (PreparedStatement ps = connection.prepareStatement(
                            grant.mode() == LockMode.SHARED ? unlockShared : unlockExclusive)) {
                        ps.setQueryTimeout(timeout);
                        ps.setLong(1, pinned.key);
                        ps.setString(2, pinned.idleBefore);
                        try (ResultSet rs = ps.executeQuery()) {
                            return rs.next() && rs.getBoolean(1);
                        }
                    }
                },
                e -> failure(grant.name(), "release", e));
    }

    /**
     * A failed lock attempt discarded its connection in {@link #tryAcquire}, which ended its session;
     * a permit attempt may have left its row.
     */
    @Override
    public void abandon(LockRequest request) {
        if (JdbcPermits.isPermit(request)) {
            permits.abandon(request);
        }
    }

    @Override
    public void close() {
        if (!gate.close()) {
            return;
        }
        permits.close();
        notifications.close();
        waits.close();
        JdbcSession.closeOwnedPool(ownedPool, name());
    }

    private void ready(String lockName) {
        gate.pass(lockName, () -> {
            try (JdbcSession db = JdbcSession.open(dataSource, ownedPool, timeout, false)) {
                OptimisticLockBackend.detect(db, lockName, Strategy.ADVISORY);
                JdbcSchema.ensure(
                        db.connection,
                        JdbcSchema.ddl(Strategy.ADVISORY, Dialect.POSTGRESQL, names),
                        java.util.List.of(sequence()),
                        createSchema,
                        timeout,
                        "Baton lock '" + lockName + "' on " + name());
                return Boolean.TRUE;
            }
        });
    }

    private LockUnavailableException failure(String lockName, String action, SQLException e) {
        return gate.failure(lockName, action, e);
    }
}
