package dev.baton.jdbc;

import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockKind;
import dev.baton.spi.LockMode;
import dev.baton.spi.LockRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code advisory} strategy on MariaDB/MySQL: a named lock ({@code GET_LOCK} / {@code
 * RELEASE_LOCK}) held on a connection that is pinned to the grant for the whole lease ({@link
 * Grant#backendState()}).
 *
 * <p>Protocol:
 *
 * <ul>
 *   <li>Acquire: on a borrowed connection, {@code GET_LOCK(name, 0)} for a try; a waiter calls {@code
 *       GET_LOCK(name, remaining seconds)} and so queues inside the server (slices of 30 s for an
 *       unlimited wait), on a helper thread so it can be interrupted ({@code KILL QUERY}). Granted:
 *       the session's {@code wait_timeout} is set to the lease (whole seconds, rounded up) and the
 *       name's fencing counter in {@code <table>_fencing} is incremented ({@code LAST_INSERT_ID(expr)}
 *       returns it), while the lock is held, so tokens strictly increase per name.
 *   <li>Renew: {@code IS_USED_LOCK(name) = CONNECTION_ID()} on the pinned connection: the session is
 *       alive and still holds the lock. Anything else is a lost lease.
 *   <li>Release: {@code RELEASE_LOCK(name)}, which only ever releases a lock of the calling session,
 *       so a stranger can never release it; then {@code wait_timeout} is restored and the connection
 *       returned. Any failure discards the connection (evicted from Baton's pool, aborted in an
 *       application's), which ends the session and so frees the lock.
 * </ul>
 *
 * <p>Lease: the lock lives as long as its session. A client that dies closes its socket and the lock
 * goes at once; one that vanishes without closing it is ended by the server after {@code
 * wait_timeout}, that is after one lease time (rounded up to whole seconds).
 *
 * <p>Names: named locks are server-wide, compared case-insensitively and limited to 64 characters.
 * The server-side name is {@code <database>.<table>:<name>} when that is at most 64 characters of
 * lower-case ASCII letters, digits and {@code . _ : / -} (so case folding cannot merge two names),
 * and otherwise {@code baton#} followed by the first 58 hexadecimal digits (232 bits) of SHA-256 over
 * that string. Hex rather than base64: base64 relies on upper and lower case, which the server would
 * fold. Two names collide only with probability 2<sup>-232</sup>, and a collision could only make
 * two names exclude each other.
 *
 * <p>Read locks are refused with {@link UnsupportedOperationException}: MariaDB has no shared named
 * locks. Use the {@code pessimistic} or {@code optimistic} strategy for read/write locks on MariaDB.
 */
final class MariaDbAdvisoryLockBackend implements LockBackend {
    private static final Logger log = LoggerFactory.getLogger(MariaDbAdvisoryLockBackend.class);

    private static final int MAX_NAME_CHARS = 64;
    private static final Pattern PLAIN_NAME = Pattern.compile("[a-z0-9._:/-]{1," + MAX_NAME_CHARS + "}");
    static final String HASHED_PREFIX = "baton#";

    private final DataSource dataSource;
    private final ReconnectingPool ownedPool;
    private final TableNames names;
    private final boolean createSchema;
    private final int timeout;
    private final StatementWait waits;
    private final String upsertToken;
    /** Passed with the namespace of server-side lock names. */
    private final SchemaGate<String> gate;
    /** Semaphore permits, in tables of their own (named locks cannot count); their waiters poll. */
    private final JdbcPermits permits;

    MariaDbAdvisoryLockBackend(
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
        this.waits = new StatementWait("baton-jdbc-getlock-wait", name(), operationTimeout.toMillis());
        // ? = name. LAST_INSERT_ID(expr) makes the session remember the new token for the next query.
        this.upsertToken = "INSERT INTO " + fencingTable() + " (lock_name, fencing_token) VALUES (?, LAST_INSERT_ID(1))"
                + " ON DUPLICATE KEY UPDATE fencing_token = LAST_INSERT_ID(fencing_token + 1)";
        this.permits = new JdbcPermits(
                this::name,
                dataSource,
                ownedPool,
                names,
                createSchema,
                operationTimeout,
                name -> {
                    ready(name);
                    return Dialect.MARIADB;
                },
                null);
    }

    private String fencingTable() {
        return names.locks() + "_fencing";
    }

    @Override
    public String name() {
        return Strategy.ADVISORY.backendName() + " (MariaDB)";
    }

    @Override
    public boolean queuesWaiters() {
        return true;
    }

    /** Lock waiters queue in GET_LOCK; permit waiters poll ({@link JdbcPermits}). */
    @Override
    public boolean queuesWaiters(LockKind kind) {
        return kind != LockKind.PERMIT;
    }

    /** Permits live in tables of their own ({@link JdbcPermits}), with no named lock involved. */
    @Override
    public boolean supportsPermits() {
        return true;
    }

    /**
     * The server-side lock name of {@code lockName} in {@code namespace} ({@code
     * <database>.<table>}); see the class comment.
     */
    static String serverName(String namespace, String lockName) {
        String full = namespace + ":" + lockName;
        if (PLAIN_NAME.matcher(full).matches()) {
            return full;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(full.getBytes(StandardCharsets.UTF_8));
            return HASHED_PREFIX
                    + HexFormat.of().formatHex(digest).substring(0, MAX_NAME_CHARS - HASHED_PREFIX.length());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The pinned session of one grant. Renew and release take turns on it. */
    private static final class Pinned extends PinnedSession {
        final String serverName;
        final long waitTimeoutBefore;

        Pinned(Connection connection, ReconnectingPool ownedPool, String serverName, long waitTimeoutBefore) {
            super(connection, ownedPool);
            this.serverName = serverName;
            this.waitTimeoutBefore = waitTimeoutBefore;
        }
    }

    /** What GET_LOCK answered: 1 granted, 0 timed out, null failed (killed); and the session's wait_timeout. */
    private record Attempt(Integer status, long waitTimeout) {
        boolean granted() {
            return status != null && status == 1;
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
        if (request.mode() == LockMode.SHARED) {
            throw new UnsupportedOperationException("Baton lock '" + request.name() + "' (read) on " + name()
                    + ": MariaDB's named locks (GET_LOCK) have no shared mode, so read locks are not supported;"
                    + " use the pessimistic or optimistic strategy for read/write locks on MariaDB");
        }
        String serverName = serverName(ready(request.name()), request.name());
        long lease = OptimisticLockBackend.leaseMillis(request.leaseTime());
        Connection connection;
        try (JdbcSession db = JdbcSession.open(dataSource, ownedPool, timeout, false)) {
            connection = db.detach();
        } catch (SQLException e) {
            throw failure(request.name(), "acquire", e);
        }
        boolean keep = false;
        try {
            // Uncontended, the try is all it takes; only a busy lock waits in the server's queue.
            Attempt attempt = getLock(connection, serverName, 0, timeout);
            if (timeoutNanos != 0 && attempt.status() != null && !attempt.granted()) {
                long deadline = System.nanoTime() + timeoutNanos;
                while (true) {
                    long waitMillis = StatementWait.nextWaitMillis(timeoutNanos, deadline);
                    if (waitMillis == 0) {
                        return Optional.empty();
                    }
                    Connection c = connection;
                    attempt = waits.run(
                            c, waitMillis, request.name(), () -> getLock(c, serverName, waitMillis, 0), got -> {
                                if (got.granted()) {
                                    releaseLock(c, serverName);
                                }
                            });
                    if (attempt.granted() || timeoutNanos > 0) {
                        break;
                    }
                    if (gate.isClosed()) {
                        throw new LockUnavailableException("Baton lock '" + request.name() + "' on " + name()
                                + ": the client was closed while waiting; create a new client to take locks");
                    }
                }
            }
            if (attempt.status() == null) {
                // GET_LOCK answers NULL when the statement was killed; the lock was not taken.
                throw new SQLException("GET_LOCK returned NULL (the statement was killed)", "70100");
            }
            if (!attempt.granted()) {
                return Optional.empty();
            }
            long token;
            try (Statement st = connection.createStatement()) {
                st.setQueryTimeout(timeout);
                st.execute("SET SESSION wait_timeout = " + waitTimeoutSeconds(lease));
            }
            try (PreparedStatement ps = connection.prepareStatement(upsertToken)) {
                ps.setQueryTimeout(timeout);
                ps.setString(1, request.name());
                ps.executeUpdate();
            }
            try (Statement st = connection.createStatement();
                    ResultSet rs = st.executeQuery("SELECT LAST_INSERT_ID()")) {
                rs.next();
                token = rs.getLong(1);
            }
            Grant grant = new Grant(
                    request.name(),
                    request.ownerId(),
                    request.mode(),
                    token,
                    Instant.now().plusMillis(lease),
                    new Pinned(connection, ownedPool, serverName, attempt.waitTimeout()));
            keep = true;
            return Optional.of(grant);
        } catch (StatementWait.Interrupted e) {
            if (!e.connectionUsable) {
                JdbcSession.discard(connection, ownedPool);
                connection = null;
            }
            throw e;
        } catch (SQLException e) {
            // The lock may have been taken before the failure: end the session so it cannot linger.
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
     * {@code GET_LOCK(name, wait)}; {@code queryTimeoutSeconds} 0 leaves the statement unbounded on the
     * client (the server bounds it by {@code waitMillis}; a JDBC query timeout would become MariaDB's
     * {@code max_statement_time}).
     */
    private static Attempt getLock(Connection connection, String serverName, long waitMillis, int queryTimeoutSeconds)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                String.format(Locale.ROOT, "SELECT GET_LOCK(?, %.3f), @@session.wait_timeout", waitMillis / 1000.0))) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            ps.setString(1, serverName);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                int status = rs.getInt(1);
                return new Attempt(rs.wasNull() ? null : status, rs.getLong(2));
            }
        }
    }

    /** Whether this session held the lock and released it. */
    private boolean releaseLock(Connection connection, String serverName) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT RELEASE_LOCK(?)")) {
            ps.setQueryTimeout(timeout);
            ps.setString(1, serverName);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getInt(1) == 1;
            }
        }
    }

    private static long waitTimeoutSeconds(long leaseMillis) {
        return Math.max(1, Math.min(31_536_000, (leaseMillis + 999) / 1000));
    }

    /** Returns an unpinned connection (no lock taken, settings untouched) to the pool. */
    private void giveBack(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            log.debug("Baton {}: returning a connection failed: {}", name(), e.toString());
        }
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        if (JdbcPermits.isPermit(grant)) {
            return permits.renew(grant, leaseTime);
        }
        Pinned pinned = (Pinned) grant.backendState();
        long lease = OptimisticLockBackend.leaseMillis(leaseTime);
        return pinned.renew(
                grant,
                name(),
                connection -> {
                    // Any statement resets the session's idle clock (wait_timeout); this one also
                    // proves the lock is still this session's.
                    try (PreparedStatement ps =
                            connection.prepareStatement("SELECT IS_USED_LOCK(?) = CONNECTION_ID()")) {
                        ps.setQueryTimeout(timeout);
                        ps.setString(1, pinned.serverName);
                        try (ResultSet rs = ps.executeQuery()) {
                            return rs.next() && rs.getInt(1) == 1
                                    ? Optional.of(
                                            grant.withExpiresAt(Instant.now().plusMillis(lease)))
                                    : Optional.empty();
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
            return false; // an abandoned attempt: acquire already ended its session
        }
        return pinned.release(
                connection -> {
                    boolean held = releaseLock(connection, pinned.serverName);
                    try (Statement st = connection.createStatement()) {
                        st.setQueryTimeout(timeout);
                        st.execute("SET SESSION wait_timeout = " + pinned.waitTimeoutBefore);
                    }
                    return held;
                },
                e -> failure(grant.name(), "release", e));
    }

    /** A failed lock attempt ended its session in {@link #acquire}; a permit attempt may have left a row. */
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
        waits.close();
        JdbcSession.closeOwnedPool(ownedPool, name());
    }

    /** Checks the schema once and returns the namespace of server-side lock names. */
    private String ready(String lockName) {
        return gate.pass(lockName, () -> {
            try (JdbcSession db = JdbcSession.open(dataSource, ownedPool, timeout, false)) {
                OptimisticLockBackend.detect(db, lockName, Strategy.ADVISORY);
                JdbcSchema.ensure(
                        db.connection,
                        JdbcSchema.ddl(Strategy.ADVISORY, Dialect.MARIADB, names),
                        List.of(fencingTable()),
                        createSchema,
                        timeout,
                        "Baton lock '" + lockName + "' on " + name());
                // Named locks are server-wide: the database keeps two applications' tables apart.
                String table = names.locks();
                if (!table.contains(".")) {
                    String database =
                            db.first("SELECT DATABASE()", rs -> rs.getString(1)).orElse("");
                    table = database + "." + table;
                }
                return table;
            }
        });
    }

    private LockUnavailableException failure(String lockName, String action, SQLException e) {
        return gate.failure(lockName, action, e);
    }
}
