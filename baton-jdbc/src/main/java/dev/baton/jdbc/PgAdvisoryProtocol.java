package dev.baton.jdbc;

import dev.baton.LockInfo;
import dev.baton.LockMode;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
 * <p>Keys: the first 8 bytes of SHA-256 over {@code <table>:<name>} ({@link AdvisoryKeys#key}, where
 * the collision risk is weighed). Operators' listing and forced release: {@link PgAdvisoryHolders}.
 *
 * <p>Does not work behind a transaction-pooling PgBouncer: the session would not stay with the
 * client. The SQL is in {@link PgAdvisoryStatements}, the key hashing in {@link AdvisoryKeys}.
 */
final class PgAdvisoryProtocol extends PinnedProtocol {
    private final PgAdvisoryStatements sql;

    PgAdvisoryProtocol(Context context) {
        super(context);
        this.sql = new PgAdvisoryStatements(context.names(), context.advisoryHolders());
    }

    @Override
    public Map<String, String> probes() {
        return sql.probes;
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return new PgAdvisoryHolders(context, sql).list(prefix);
    }

    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        return new PgAdvisoryHolders(context, sql).forceRelease(name, ownerId);
    }

    /** The pinned session of one grant, with its advisory key and the idle bound to restore. */
    private static final class Pinned extends PinnedSession {
        final long key;
        final String idleBefore;

        Pinned(JdbcProtocol protocol, Connection connection, ReconnectingPool ownedPool, long key, String idleBefore) {
            super(protocol, connection, ownedPool);
            this.key = key;
            this.idleBefore = idleBefore;
        }
    }

    /** One round trip: the lock if it is free now, with its token; empty (nothing changed) if busy. */
    @Override
    Optional<Grant> tryOn(Connection connection, LockRequest request) throws SQLException {
        long key = AdvisoryKeys.key(context.names(), request.name());
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        try (PreparedStatement ps = connection.prepareStatement(
                request.mode() == LockMode.SHARED ? sql.acquireShared : sql.acquireExclusive)) {
            ps.setQueryTimeout(timeout);
            ps.setLong(1, key);
            ps.setLong(2, lease);
            ps.setString(3, String.valueOf(JdbcTime.idleMillis(lease)));
            sql.bindRecord(ps, 4, request, key, lease);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(grant(connection, request, key, rs)) : Optional.empty();
            }
        }
    }

    /** The grant of a statement that took the lock: (token, expiry in epoch millis, idle bound before). */
    private Grant grant(Connection connection, LockRequest request, long key, ResultSet rs) throws SQLException {
        return Grant.of(request, rs.getLong(1), Instant.ofEpochMilli(rs.getLong(2)))
                .withBackendState(new Pinned(this, connection, connections.ownedPool, key, rs.getString(3)));
    }

    /**
     * One bounded wait in PostgreSQL's own lock queue: {@code pg_advisory_lock} ({@code _shared} for
     * readers) on the waiter's own connection, bounded by a transaction-local {@code lock_timeout}, so
     * a release hands the lock over at once and in queue order. The same statement then, holding the
     * lock, draws the token as in {@link #tryOn}, so a hand-off costs the next holder no further round
     * trip.
     */
    @Override
    Optional<Grant> waitOn(Connection connection, LockRequest request, long waitMillis) throws SQLException {
        return lockWaiting(
                connection,
                request,
                AdvisoryKeys.key(context.names(), request.name()),
                JdbcTime.leaseMillis(request.leaseTime()),
                waitMillis);
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
        try (PreparedStatement ps = connection.prepareStatement(shared ? sql.waitShared : sql.waitExclusive)) {
            // No JDBC query timeout: lock_timeout bounds the wait, and the caller cancels it otherwise.
            ps.setString(1, String.valueOf(waitMillis));
            ps.setLong(2, key);
            ps.setLong(3, lease);
            ps.setString(4, String.valueOf(JdbcTime.idleMillis(lease)));
            sql.bindRecord(ps, 5, request, key, lease);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("the wait statement returned no row", "XX000");
                }
                return Optional.of(grant(connection, request, key, rs));
            }
        } catch (SQLException e) {
            try (PreparedStatement ps =
                    connection.prepareStatement(shared ? sql.unlockIfHeldShared : sql.unlockIfHeldExclusive)) {
                ps.setQueryTimeout(timeout);
                ps.setLong(1, key);
                ps.executeQuery().close();
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

    /** Gives back a lock that a cancelled wait got anyway, with the idle bound the session had. */
    @Override
    void undo(Connection connection, Grant grant) throws SQLException {
        Pinned pinned = (Pinned) grant.backendState();
        boolean shared = grant.mode() == LockMode.SHARED;
        if (!sql.unlock(connection, timeout, grant.name(), shared, pinned.key, pinned.idleBefore)) {
            throw new SQLException("the advisory lock granted during a cancel was not held", "55000");
        }
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        long lease = JdbcTime.leaseMillis(leaseTime);
        return ((Pinned) grant.backendState())
                .renew(
                        grant,
                        context.backendName(),
                        connection -> Optional.of(grant.withExpiresAt(sql.renew(connection, timeout, lease))),
                        e -> context.failure(grant.name(), "renew", e));
    }

    @Override
    public Released release(Grant grant) {
        if (!(grant.backendState() instanceof Pinned pinned)) {
            return Released.NOT_HELD; // an abandoned attempt: tryAcquire already ended its session
        }
        boolean shared = grant.mode() == LockMode.SHARED;
        return Released.of(pinned.release(
                connection -> sql.unlock(connection, timeout, grant.name(), shared, pinned.key, pinned.idleBefore),
                e -> context.failure(grant.name(), "release", e)));
    }
}
