package dev.baton.jdbc;

import dev.baton.LockInfo;
import dev.baton.LockMode;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
 * The SQL is in {@link MariaDbNamedLockStatements}, the name hashing in {@link AdvisoryKeys}.
 */
final class MariaDbNamedLockProtocol extends PinnedProtocol {
    private final MariaDbNamedLockStatements sql;
    /** The namespace of server-side lock names, read once the schema exists (published by the gate). */
    private String namespace;

    MariaDbNamedLockProtocol(Context context) {
        super(context);
        this.sql = new MariaDbNamedLockStatements(context.names());
    }

    @Override
    public Map<String, String> probes() {
        return sql.probes;
    }

    /** From the fencing table, where the holder's connection holds the lock now ({@link MariaDbNamedLockHolders}). */
    @Override
    public List<LockInfo> list(String prefix) {
        return new MariaDbNamedLockHolders(context, sql).list(prefix);
    }

    /** Ends each holder's connection ({@link MariaDbNamedLockHolders}). */
    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        return new MariaDbNamedLockHolders(context, sql).forceRelease(name, ownerId);
    }

    /** Named locks are server-wide: the database keeps two applications' tables apart. */
    @Override
    public void prepare(JdbcSession db) throws SQLException {
        String table = context.names().locks();
        if (!table.contains(".")) {
            String database = db.first(sql.database, rs -> rs.getString(1)).orElse("");
            table = database + "." + table;
        }
        namespace = table;
    }

    /** Refuses a read lock, before any I/O. */
    static void requireExclusive(LockRequest request, String backendName) {
        if (request.mode() == LockMode.SHARED) {
            throw new UnsupportedOperationException("Baton lock '" + request.name() + "' (read) on " + backendName
                    + ": MariaDB's named locks (GET_LOCK) have no shared mode, so read locks are not supported;"
                    + " use the pessimistic or optimistic strategy for read/write locks on MariaDB");
        }
    }

    /** The pinned session of one grant. Renew and release take turns on it. */
    private static final class Pinned extends PinnedSession {
        final String serverName;
        final long waitTimeoutBefore;

        Pinned(
                JdbcProtocol protocol,
                Connection connection,
                ReconnectingPool ownedPool,
                String serverName,
                long waitTimeoutBefore) {
            super(protocol, connection, ownedPool);
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

    /** {@code GET_LOCK(name, 0)} and, granted, the grant's statements. */
    @Override
    Optional<Grant> tryOn(Connection connection, LockRequest request) throws SQLException {
        String serverName = AdvisoryKeys.serverName(namespace, request.name());
        return granted(connection, request, serverName, getLock(connection, serverName, 0, timeout));
    }

    /** {@code GET_LOCK} with a timeout, queued in the server; granted, the grant's statements. */
    @Override
    Optional<Grant> waitOn(Connection connection, LockRequest request, long waitMillis) throws SQLException {
        String serverName = AdvisoryKeys.serverName(namespace, request.name());
        return granted(connection, request, serverName, getLock(connection, serverName, waitMillis, 0));
    }

    /** Releases a lock a cancelled wait got anyway, and restores the session's idle bound. */
    @Override
    void undo(Connection connection, Grant grant) throws SQLException {
        Pinned pinned = (Pinned) grant.backendState();
        releaseLock(connection, pinned.serverName);
        execute(connection, sql.setWaitTimeout(pinned.waitTimeoutBefore));
    }

    /**
     * Once {@code GET_LOCK} granted: bounds the session's idleness by the lease and counts the name's
     * token (the holder recorded in the same statement).
     */
    private Optional<Grant> granted(Connection connection, LockRequest request, String serverName, Attempt attempt)
            throws SQLException {
        if (attempt.status() == null) {
            // GET_LOCK answers NULL when the statement was killed; the lock was not taken.
            throw new SQLException("GET_LOCK returned NULL (the statement was killed)", "70100");
        }
        if (!attempt.granted()) {
            return Optional.empty();
        }
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        execute(connection, sql.setWaitTimeout(JdbcTime.waitTimeoutSeconds(lease)));
        try (PreparedStatement ps = connection.prepareStatement(sql.upsertToken)) {
            ps.setQueryTimeout(timeout);
            ps.setString(1, request.name());
            ps.setString(2, request.ownerId());
            ps.setString(3, request.holder());
            ps.setString(4, serverName);
            ps.setLong(5, lease);
            ps.executeUpdate();
        }
        long token;
        try (Statement st = connection.createStatement();
                ResultSet rs = st.executeQuery(sql.lastToken)) {
            rs.next();
            token = rs.getLong(1);
        }
        return Optional.of(Grant.of(request, token, JdbcTime.expiry(lease))
                .withBackendState(
                        new Pinned(this, connection, connections.ownedPool, serverName, attempt.waitTimeout())));
    }

    /**
     * {@code GET_LOCK(name, wait)}; {@code queryTimeoutSeconds} 0 leaves the statement unbounded on the
     * client (the server bounds it by {@code waitMillis}; a JDBC query timeout would become MariaDB's
     * {@code max_statement_time}).
     */
    private Attempt getLock(Connection connection, String serverName, long waitMillis, int queryTimeoutSeconds)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql.getLock(waitMillis))) {
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
        try (PreparedStatement ps = connection.prepareStatement(sql.releaseLock)) {
            ps.setQueryTimeout(timeout);
            ps.setString(1, serverName);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getInt(1) == 1;
            }
        }
    }

    private void execute(Connection connection, String statement) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.setQueryTimeout(timeout);
            st.execute(statement);
        }
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        Pinned pinned = (Pinned) grant.backendState();
        long lease = JdbcTime.leaseMillis(leaseTime);
        return pinned.renew(
                grant,
                context.backendName(),
                connection -> {
                    try (PreparedStatement ps = connection.prepareStatement(sql.isHeld)) {
                        ps.setQueryTimeout(timeout);
                        ps.setString(1, pinned.serverName);
                        try (ResultSet rs = ps.executeQuery()) {
                            return rs.next() && rs.getInt(1) == 1
                                    ? Optional.of(grant.withExpiresAt(JdbcTime.expiry(lease)))
                                    : Optional.empty();
                        }
                    }
                },
                e -> context.failure(grant.name(), "renew", e));
    }

    @Override
    public Released release(Grant grant) {
        if (!(grant.backendState() instanceof Pinned pinned)) {
            return Released.NOT_HELD; // an abandoned attempt: acquire already ended its session
        }
        return Released.of(pinned.release(
                connection -> {
                    boolean held = releaseLock(connection, pinned.serverName);
                    execute(connection, sql.setWaitTimeout(pinned.waitTimeoutBefore));
                    return held;
                },
                e -> context.failure(grant.name(), "release", e)));
    }
}
