package dev.baton.jdbc;

import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockKind;
import dev.baton.spi.LockMode;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code pessimistic} strategy (PostgreSQL, MariaDB): the holder locks the name's row in {@code
 * <table>_pess} with {@code SELECT ... FOR UPDATE} ({@code FOR SHARE} / {@code LOCK IN SHARE MODE}
 * for readers) in a transaction that stays open on a dedicated connection for the whole lease
 * ({@link Grant#backendState()}). Waiters queue on the row lock inside the database, first come first
 * served.
 *
 * <p>Protocol:
 *
 * <ul>
 *   <li>Acquire: begin; lock the row ({@code NOWAIT} for a try; a timed wait bounded by PostgreSQL's
 *       {@code lock_timeout} or MariaDB's {@code max_statement_time}); then, holding it, draw the
 *       fencing token from {@code <table>_pess_seq} and bound the idle transaction to the lease
 *       ({@code idle_in_transaction_session_timeout} on PostgreSQL, {@code wait_timeout} on MariaDB).
 *       A name seen for the first time gets its row inserted (auto-commit) first.
 *   <li>Renew: sets that idle bound again, which proves the session and its transaction alive.
 *   <li>Release: rollback, which ends the transaction and frees the row; the connection goes back to
 *       the pool with its settings restored.
 * </ul>
 *
 * <p>Loss: the lease is lost when the connection breaks (the server rolls the transaction back), and
 * the server ends a transaction left idle for a lease time, so a vanished client frees the lock within
 * one lease. Tokens come from a sequence, which is not transactional: a token drawn by a holder that
 * was rolled back is never handed out again, so tokens strictly increase per name.
 *
 * <p>A pooled connection never carries a lock or a transaction to its next borrower: release rolls
 * back and restores auto-commit and isolation, and any failure discards the connection instead of
 * returning it. Blocking waits run on a helper thread so that the waiting caller can be interrupted
 * (the statement is cancelled, the connection aborted if cancelling does not end it in time).
 */
final class PessimisticLockBackend implements LockBackend {
    private static final Logger log = LoggerFactory.getLogger(PessimisticLockBackend.class);
    /** Unlimited waits are re-issued in slices so a dead server is noticed; the queue place is kept. */
    private static final long SLICE_MILLIS = 30_000;

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final DataSource dataSource;
    private final ReconnectingPool ownedPool;
    private final TableNames names;
    private final boolean createSchema;
    private final Duration operationTimeout;
    private final int timeout;
    private final Set<Connection> waiting = ConcurrentHashMap.newKeySet();
    private final ExecutorService waits = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "baton-jdbc-wait-" + THREADS.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });
    private volatile Dialect dialect;
    /** Passed with the dialect, once the schema is known to exist. */
    private final SchemaGate<Dialect> gate;
    /** Semaphore permits, in tables of their own; their waiters poll, woken on PostgreSQL. */
    private final JdbcPermits permits;

    private final PgNotifications notifications;

    PessimisticLockBackend(
            DataSource dataSource,
            Dialect dialect,
            TableNames names,
            boolean createSchema,
            Duration operationTimeout,
            ReconnectingPool ownedPool) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.names = names;
        this.createSchema = createSchema;
        this.operationTimeout = operationTimeout;
        this.timeout = TableLockBackend.queryTimeoutSeconds(operationTimeout);
        this.ownedPool = ownedPool;
        this.gate = new SchemaGate<>(this::name, operationTimeout, names);
        this.notifications = new PgNotifications(this::name, dataSource, ownedPool, operationTimeout, () -> {
            Dialect known = this.dialect;
            return known == null || known == Dialect.POSTGRESQL;
        });
        this.permits = new JdbcPermits(
                this::name, dataSource, ownedPool, names, createSchema, operationTimeout, this::ready, notifications);
    }

    @Override
    public String name() {
        Dialect known = dialect;
        String base = Strategy.PESSIMISTIC.backendName();
        return known == null ? base : base + " (" + known.displayName() + ")";
    }

    @Override
    public boolean queuesWaiters() {
        return true;
    }

    /** Lock waiters queue on the row lock; permit waiters poll ({@link JdbcPermits}). */
    @Override
    public boolean queuesWaiters(LockKind kind) {
        return kind != LockKind.PERMIT;
    }

    /** Permits live in tables of their own ({@link JdbcPermits}), not in held transactions. */
    @Override
    public boolean supportsPermits() {
        return true;
    }

    /** Used by permit waiters only (lock waiters queue): wakes them on PostgreSQL. */
    @Override
    public ReleaseNotifications releaseNotifications() {
        return notifications;
    }

    // ---------------------------------------------------------------------------------------------
    // The statements, per dialect

    private String rows() {
        return names.locks() + "_pess";
    }

    private String sequence() {
        return names.locks() + "_pess_seq";
    }

    /** Locks the row; {@code waitMillis} 0 = NOWAIT, negative = one slice of an unlimited wait. ? = name. */
    private String lockRow(Dialect d, LockMode mode, long waitMillis) {
        boolean shared = mode == LockMode.SHARED;
        if (d == Dialect.POSTGRESQL) {
            return "SELECT 1 FROM " + rows() + " WHERE lock_name = ? " + (shared ? "FOR SHARE" : "FOR UPDATE")
                    + (waitMillis == 0 ? " NOWAIT" : "");
        }
        String select =
                "SELECT 1 FROM " + rows() + " WHERE lock_name = ? " + (shared ? "LOCK IN SHARE MODE" : "FOR UPDATE");
        if (waitMillis == 0) {
            return select + " NOWAIT";
        }
        if (waitMillis < 0) {
            // A slice of an unlimited wait: innodb_lock_wait_timeout (error 1205) leaves the
            // connection usable for the next slice.
            return "SET STATEMENT innodb_lock_wait_timeout = " + SLICE_MILLIS / 1000 + " FOR " + select;
        }
        // A timed wait: max_statement_time has microsecond resolution, innodb_lock_wait_timeout only
        // whole seconds.
        long bound = waitMillis;
        return String.format(
                Locale.ROOT,
                "SET STATEMENT max_statement_time = %.3f, innodb_lock_wait_timeout = %d FOR %s",
                bound / 1000.0,
                Math.max(1, (bound + 999) / 1000 + 1),
                select);
    }

    /** Draws the token; on PostgreSQL also bounds the idle transaction. ? = idle millis (PostgreSQL). */
    private String drawToken(Dialect d) {
        return d == Dialect.POSTGRESQL
                ? "SELECT nextval('" + sequence() + "'), set_config('idle_in_transaction_session_timeout', ?, false)"
                : "SELECT NEXT VALUE FOR " + sequence();
    }

    // ---------------------------------------------------------------------------------------------
    // The protocol

    /** A held row lock: its connection, in an open transaction. Renew and release take turns. */
    private static final class Held extends PinnedSession {
        final boolean autoCommitBefore;
        final int isolationBefore;

        Held(Connection connection, ReconnectingPool ownedPool, boolean autoCommitBefore, int isolationBefore) {
            super(connection, ownedPool);
            this.autoCommitBefore = autoCommitBefore;
            this.isolationBefore = isolationBefore;
        }
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        try {
            return acquire(request, 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(
                    "Baton lock '" + request.name() + "' on " + name() + ": interrupted while trying", e);
        }
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        if (JdbcPermits.isPermit(request)) {
            return permits.tryAcquire(request); // the core polls for permits: never called to wait
        }
        Dialect d = ready(request.name());
        long waitMillis = timeoutNanos < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(timeoutNanos);
        Connection connection;
        try (JdbcSession db = JdbcSession.open(dataSource, ownedPool, timeout, false)) {
            connection = db.detach();
        } catch (SQLException e) {
            throw failure(request.name(), "acquire", e);
        }
        boolean autoCommitBefore;
        int isolationBefore;
        try {
            autoCommitBefore = connection.getAutoCommit();
            isolationBefore = connection.getTransactionIsolation();
        } catch (SQLException e) {
            JdbcSession.discard(connection, ownedPool);
            throw failure(request.name(), "acquire", e);
        }
        Held held = new Held(connection, ownedPool, autoCommitBefore, isolationBefore);
        boolean granted = false;
        try {
            long lease = OptimisticLockBackend.leaseMillis(request.leaseTime());
            boolean locked = lock(d, held, request, waitMillis, true);
            if (!locked) {
                return Optional.empty();
            }
            long token;
            try (PreparedStatement ps = connection.prepareStatement(drawToken(d))) {
                ps.setQueryTimeout(timeout);
                if (d == Dialect.POSTGRESQL) {
                    ps.setString(1, String.valueOf(idleMillis(lease)));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    token = rs.getLong(1);
                }
            }
            if (d == Dialect.MARIADB) {
                setMariaDbIdleBound(connection, lease);
            }
            granted = true;
            return Optional.of(new Grant(
                    request.name(),
                    request.ownerId(),
                    request.mode(),
                    token,
                    Instant.now().plusMillis(lease),
                    held));
        } catch (SQLException e) {
            throw failure(request.name(), "acquire", e);
        } finally {
            if (!granted) {
                held.endOnce(() -> finish(held, false));
            }
        }
    }

    /**
     * Begins the transaction and locks the row, inserting it first if the name is new. Returns
     * whether the lock was taken within the wait.
     */
    private boolean lock(Dialect d, Held held, LockRequest request, long waitMillis, boolean insertIfMissing)
            throws SQLException, InterruptedException {
        Connection connection = held.connection;
        connection.setAutoCommit(false);
        if (held.isolationBefore != Connection.TRANSACTION_READ_COMMITTED) {
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        long deadline = waitMillis > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis) : 0;
        while (true) {
            long slice = waitMillis <= 0
                    ? waitMillis
                    : Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            Optional<Boolean> found;
            try {
                found = waitMillis == 0
                        ? Optional.of(lockNow(d, held, request, 0))
                        : lockWaiting(d, held, request, waitMillis < 0 ? -1 : slice);
            } catch (SQLException e) {
                if (JdbcFailures.isConflict(e) || (d == Dialect.MARIADB && JdbcFailures.isTimeout(e))) {
                    if (waitMillis > 0 && d == Dialect.MARIADB) {
                        // max_statement_time ended the wait; HikariCP takes the resulting
                        // SQLTimeoutException for a dead connection and closes it, so there is
                        // nothing to roll back: the caller discards the connection.
                        return false;
                    }
                    connection.rollback();
                    if (waitMillis < 0 && !gate.isClosed()) {
                        continue; // the slice of an unlimited wait ran out: queue again
                    }
                    return false;
                }
                throw e;
            }
            if (found.isEmpty()) {
                return false;
            }
            if (found.get()) {
                return true;
            }
            // No row yet: create it (committed at once), then lock it.
            connection.rollback();
            if (!insertIfMissing) {
                return false;
            }
            connection.setAutoCommit(true);
            try (PreparedStatement ps = connection.prepareStatement(insertRow(d))) {
                ps.setQueryTimeout(timeout);
                ps.setString(1, request.name());
                ps.executeUpdate();
            } catch (SQLException e) {
                if (!JdbcFailures.isDuplicateKey(e)) {
                    throw e;
                }
            }
            connection.setAutoCommit(false);
            insertIfMissing = false;
        }
    }

    private String insertRow(Dialect d) {
        return d.insertIfAbsent("INSERT INTO " + rows() + " (lock_name) VALUES (?)", "lock_name");
    }

    /** Runs the lock statement on this thread; whether the row exists (and is now locked). */
    private boolean lockNow(Dialect d, Held held, LockRequest request, long waitMillis) throws SQLException {
        Connection connection = held.connection;
        if (d == Dialect.POSTGRESQL && waitMillis != 0) {
            try (PreparedStatement ps = connection.prepareStatement("SELECT set_config('lock_timeout', ?, true)")) {
                ps.setQueryTimeout(timeout);
                ps.setString(1, String.valueOf(waitMillis < 0 ? SLICE_MILLIS : waitMillis));
                ps.executeQuery().close();
            }
        }
        try (PreparedStatement ps = connection.prepareStatement(lockRow(d, request.mode(), waitMillis))) {
            if (waitMillis == 0 || d == Dialect.POSTGRESQL) {
                // MariaDB's driver would turn a query timeout into max_statement_time, which the wait
                // statement sets itself.
                ps.setQueryTimeout(waitMillis == 0 ? timeout : 0);
            }
            ps.setString(1, request.name());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /**
     * Runs the waiting lock statement on a helper thread, so the caller waits interruptibly.
     *
     * @throws LockUnavailableException if the backend was closed before or during the wait
     */
    private Optional<Boolean> lockWaiting(Dialect d, Held held, LockRequest request, long waitMillis)
            throws SQLException, InterruptedException {
        Connection connection = held.connection;
        int networkBefore = connection.getNetworkTimeout();
        long bound = (waitMillis < 0 ? SLICE_MILLIS : waitMillis) + operationTimeout.toMillis() + 1000;
        connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, bound));
        waiting.add(connection);
        Future<Boolean> wait;
        try {
            if (gate.isClosed()) {
                throw new java.util.concurrent.RejectedExecutionException("closed");
            }
            wait = waits.submit(() -> lockNow(d, held, request, waitMillis));
        } catch (RuntimeException e) {
            waiting.remove(connection);
            throw new LockUnavailableException(
                    "Baton lock '" + request.name() + "' on " + name()
                            + ": the client was closed while waiting; create a new client to take locks",
                    e);
        }
        try {
            return Optional.of(wait.get(bound, TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            stop(connection, wait);
            throw e;
        } catch (TimeoutException e) {
            stop(connection, wait);
            throw new SQLException("the lock wait did not end within " + bound + " ms", "08006", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                if (gate.isClosed()) {
                    throw new LockUnavailableException(
                            "Baton lock '" + request.name() + "' on " + name()
                                    + ": the client was closed while waiting; create a new client to take locks",
                            sql);
                }
                throw sql;
            }
            throw new SQLException("the lock wait failed: " + e.getCause(), e.getCause());
        } finally {
            waiting.remove(connection);
            if (!wait.isDone()) {
                stop(connection, wait);
            }
            try {
                connection.setNetworkTimeout(Runnable::run, networkBefore);
            } catch (SQLException e) {
                log.debug("Baton {}: could not restore the network timeout: {}", name(), e.toString());
            }
        }
    }

    /** Ends a wait: cancels the statement, and aborts the connection if that does not end it in time. */
    private void stop(Connection connection, Future<Boolean> wait) {
        cancel(connection);
        try {
            wait.get(operationTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException ignored) {
            // the cancelled statement failed, as expected
        } catch (TimeoutException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            try {
                connection.abort(Runnable::run);
            } catch (SQLException | RuntimeException abort) {
                log.debug("Baton {}: aborting a waiting connection failed: {}", name(), abort.toString());
            }
        }
    }

    /** Cancels whatever statement runs on {@code connection}, from another thread. */
    private void cancel(Connection connection) {
        // Statement.cancel needs the statement; PostgreSQL's and MariaDB's connections can cancel
        // their running query directly through the driver, reached by unwrapping the pool's proxy.
        try {
            if (connection.isWrapperFor(org.postgresql.PGConnection.class)) {
                connection.unwrap(org.postgresql.jdbc.PgConnection.class).cancelQuery();
                return;
            }
        } catch (SQLException | LinkageError e) {
            log.debug("Baton {}: cancelling a PostgreSQL wait failed: {}", name(), e.toString());
        }
        try {
            if (connection.isWrapperFor(org.mariadb.jdbc.Connection.class)) {
                connection.unwrap(org.mariadb.jdbc.Connection.class).cancelCurrentQuery();
            }
        } catch (SQLException | LinkageError e) {
            log.debug("Baton {}: cancelling a MariaDB wait failed: {}", name(), e.toString());
        }
    }

    private static void setMariaDbIdleBound(Connection connection, long leaseMillis) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.execute("SET SESSION wait_timeout = " + Math.max(1, Math.min(31_536_000, (leaseMillis + 999) / 1000)));
        }
    }

    private static long idleMillis(long leaseMillis) {
        return leaseMillis > Integer.MAX_VALUE ? 0 : leaseMillis;
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        if (JdbcPermits.isPermit(grant)) {
            return permits.renew(grant, leaseTime);
        }
        long lease = OptimisticLockBackend.leaseMillis(leaseTime);
        return ((Held) grant.backendState())
                .renew(
                        grant,
                        name(),
                        connection -> {
                            if (dialect == Dialect.POSTGRESQL) {
                                try (PreparedStatement ps = connection.prepareStatement(
                                        "SELECT set_config('idle_in_transaction_session_timeout', ?, false)")) {
                                    ps.setQueryTimeout(timeout);
                                    ps.setString(1, String.valueOf(idleMillis(lease)));
                                    ps.executeQuery().close();
                                }
                            } else {
                                setMariaDbIdleBound(connection, lease);
                            }
                            return Optional.of(grant.withExpiresAt(Instant.now().plusMillis(lease)));
                        },
                        e -> failure(grant.name(), "renew", e));
    }

    @Override
    public boolean release(Grant grant) {
        if (JdbcPermits.isPermit(grant)) {
            return permits.release(grant);
        }
        if (!(grant.backendState() instanceof Held held)) {
            return false; // an abandoned attempt: acquire already ended its transaction
        }
        return held.endOnce(() -> finish(held, true));
    }

    /**
     * Rolls back (freeing the row), restores the connection and returns it to the pool; discards it
     * on any failure. Returns whether the rollback reached a live transaction.
     */
    private boolean finish(Held held, boolean report) {
        Connection connection = held.connection;
        try {
            connection.rollback();
            if (dialect == Dialect.MARIADB) {
                try (Statement st = connection.createStatement()) {
                    st.setQueryTimeout(timeout);
                    st.execute("SET SESSION wait_timeout = @@GLOBAL.wait_timeout");
                }
            }
            if (connection.getTransactionIsolation() != held.isolationBefore) {
                connection.setTransactionIsolation(held.isolationBefore);
            }
            connection.setAutoCommit(held.autoCommitBefore);
            connection.close();
            return true;
        } catch (SQLException e) {
            JdbcSession.discard(connection, ownedPool);
            if (report && !JdbcFailures.isBrokenConnection(e) && !JdbcFailures.isConnection(e)) {
                log.debug(
                        "Baton {}: release failed; the connection was discarded, which ends the transaction: {}",
                        name(),
                        e.toString());
            }
            return false;
        }
    }

    /**
     * A failed lock attempt ended its transaction and discarded or returned its connection in
     * acquire; a permit attempt may have left its row.
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
        for (Connection connection : List.copyOf(waiting)) {
            cancel(connection);
        }
        waits.shutdown();
        JdbcSession.closeOwnedPool(ownedPool, name());
    }

    private Dialect ready(String lockName) {
        return gate.pass(lockName, () -> {
            try (JdbcSession db = JdbcSession.open(dataSource, ownedPool, timeout, false)) {
                Dialect d = dialect;
                if (d == null) {
                    d = OptimisticLockBackend.detect(db, lockName, Strategy.PESSIMISTIC);
                    dialect = d;
                }
                JdbcSchema.ensure(
                        db.connection,
                        JdbcSchema.ddl(Strategy.PESSIMISTIC, d, names),
                        List.of(rows(), sequence()),
                        createSchema,
                        timeout,
                        "Baton lock '" + lockName + "' on " + name());
                return d;
            }
        });
    }

    private LockUnavailableException failure(String lockName, String action, SQLException e) {
        return gate.failure(lockName, action, e);
    }
}
