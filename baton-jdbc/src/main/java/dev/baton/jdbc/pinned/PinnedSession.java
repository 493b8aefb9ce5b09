package dev.baton.jdbc.pinned;

import dev.baton.LockUnavailableException;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.spi.Grant;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session a grant of a pinning strategy keeps for its whole lease ({@link Grant#backendState()}):
 * the lock lives in that database session, so the session is the lease.
 *
 * <p>Renew and release take turns on it; once it is released or found lost it is done, and both
 * become no-ops. Whenever its state is unknown after a failure the connection is discarded (evicted
 * from Baton's pool, aborted in an application's), which ends the database session and so frees the
 * lock: a connection never goes back to a pool with a lock or a transaction still attached.
 */
final class PinnedSession {
    private static final Logger log = LoggerFactory.getLogger(PinnedSession.class);

    /** Statements run on the pinned session. */
    @FunctionalInterface
    interface Statements<T> {
        T run(JdbcSession db) throws SQLException;
    }

    /** The protocol that took the grant, which renews and releases it (the backend asks nothing else). */
    final JdbcProtocol protocol;
    /** What the strategy must know to renew and release ({@link PinnedStatements.Taken#state()}). */
    final Object state;

    private final JdbcSession db;
    private final JdbcConnections connections;
    private final ReentrantLock turn = new ReentrantLock();
    /** Guarded by {@link #turn}. */
    private boolean done;

    PinnedSession(JdbcProtocol protocol, JdbcSession db, JdbcConnections connections, Object state) {
        this.protocol = protocol;
        this.db = db;
        this.connections = connections;
        this.state = state;
    }

    /**
     * Renews: {@code renewal} returns the renewed grant, or empty when the session no longer holds the
     * lock; that, or a failure that ended the session, makes the grant lost (empty, connection
     * discarded). Any other failure is thrown as {@code failure} words it, and the grant stays as it
     * was, for the next renewal to try again.
     */
    Optional<Grant> renew(
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
                Optional<Grant> renewed = renewal.run(db);
                if (renewed.isEmpty()) {
                    log.debug(
                            "Baton lock '{}' on {}: the pinned session no longer holds it", grant.name(), backendName);
                    lose();
                }
                return renewed;
            } catch (SQLException e) {
                if (!JdbcFailures.isSessionEnded(e)) {
                    throw failure.apply(e);
                }
                // The session is gone, and with it the lock: lost for certain.
                log.debug(
                        "Baton lock '{}' on {}: the pinned session broke: {}", grant.name(), backendName, e.toString());
                lose();
                return Optional.empty();
            }
        } finally {
            turn.unlock();
        }
    }

    /**
     * Releases: runs {@code release} (true if the session still held the lock and gave it back), then
     * closes the session, which rolls back and returns the connection as it came. A failure discards
     * the connection, which frees the lock whatever state it was in; it is reported as {@code failure}
     * words it unless the session had ended anyway (then the lock was not held: false).
     */
    boolean release(Statements<Boolean> release, Function<SQLException, LockUnavailableException> failure) {
        turn.lock();
        try {
            if (done) {
                return false;
            }
            done = true;
            try {
                boolean held = release.run(db);
                db.close();
                return held;
            } catch (SQLException e) {
                connections.discard(db.detach());
                if (JdbcFailures.isSessionEnded(e)) {
                    return false;
                }
                throw failure.apply(e);
            }
        } finally {
            turn.unlock();
        }
    }

    /** Ends the session by discarding its connection; the grant is lost. Called in turn. */
    private void lose() {
        done = true;
        connections.discard(db.detach());
    }
}
