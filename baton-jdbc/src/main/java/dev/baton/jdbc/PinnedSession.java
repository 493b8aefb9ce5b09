package dev.baton.jdbc;

import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection a grant of a pinned strategy ({@code pessimistic}, {@code advisory}) keeps for its
 * whole lease: the lock lives in that database session, so the session is the lease.
 *
 * <p>Renew and release take turns on it; once it is released or found lost it is done, and both
 * become no-ops. Whenever its state is unknown after a failure the connection is discarded (evicted
 * from Baton's pool, aborted in an application's), which ends the session and so frees the lock: a
 * connection never goes back to a pool with a lock or a transaction still attached. Each pinned
 * protocol ({@link PessimisticProtocol}, {@link PgAdvisoryProtocol}, {@link MariaDbNamedLockProtocol})
 * extends it with what it must restore on release.
 */
class PinnedSession {
    private static final Logger log = LoggerFactory.getLogger(PinnedSession.class);

    /** Statements run on the pinned connection. */
    @FunctionalInterface
    interface Statements<T> {
        T run(Connection connection) throws SQLException;
    }

    /** The protocol that took the grant, which renews and releases it (the backend asks nothing else). */
    final JdbcProtocol protocol;

    final Connection connection;
    private final ReconnectingPool ownedPool;
    private final ReentrantLock turn = new ReentrantLock();
    /** Guarded by {@link #turn}. */
    private boolean done;

    PinnedSession(JdbcProtocol protocol, Connection connection, ReconnectingPool ownedPool) {
        this.protocol = protocol;
        this.connection = connection;
        this.ownedPool = ownedPool;
    }

    /**
     * Renews on the pinned session. {@code renewal} returns the renewed grant, or empty when the
     * session no longer holds the lock; that, or a failure that ended the session, makes the grant
     * lost (empty, connection discarded). Any other failure is thrown as {@code failure} words it,
     * and the grant stays as it was, for the next renewal to try again.
     */
    final Optional<Grant> renew(
            Grant grant,
            String backendName,
            Statements<Optional<Grant>> renewal,
            Function<SQLException, LockUnavailableException> failure) {
        turn.lock();
        try {
            if (done) {
                return Optional.empty();
            }
            try {
                Optional<Grant> renewed = renewal.run(connection);
                if (renewed.isEmpty()) {
                    log.debug(
                            "Baton lock '{}' on {}: the pinned session no longer holds the lock",
                            grant.name(),
                            backendName);
                    lose();
                }
                return renewed;
            } catch (SQLException e) {
                if (JdbcFailures.isSessionEnded(e)) {
                    // The session is gone, and with it the lock: lost for certain.
                    log.debug(
                            "Baton lock '{}' on {}: the pinned session broke: {}",
                            grant.name(),
                            backendName,
                            e.toString());
                    lose();
                    return Optional.empty();
                }
                throw failure.apply(e);
            }
        } finally {
            turn.unlock();
        }
    }

    /**
     * Releases: runs {@code release} (true if the session still held the lock and gave it back),
     * then returns the connection to its pool. A failure discards the connection, which frees the
     * lock whatever state it was in; it is reported as {@code failure} words it unless the session
     * had ended anyway (then the lock was not held: false).
     */
    final boolean release(Statements<Boolean> release, Function<SQLException, LockUnavailableException> failure) {
        return endOnce(() -> {
            try {
                boolean held = release.run(connection);
                connection.close();
                return held;
            } catch (SQLException e) {
                JdbcSession.discard(connection, ownedPool);
                if (JdbcFailures.isSessionEnded(e)) {
                    return false;
                }
                throw failure.apply(e);
            }
        });
    }

    /** Runs {@code ending} once, in turn with renewals; false, without running it, if already done. */
    final boolean endOnce(BooleanSupplier ending) {
        turn.lock();
        try {
            if (done) {
                return false;
            }
            done = true;
            return ending.getAsBoolean();
        } finally {
            turn.unlock();
        }
    }

    /** Ends the session by discarding its connection; the grant is lost. Called in turn. */
    private void lose() {
        done = true;
        JdbcSession.discard(connection, ownedPool);
    }
}
