package dev.baton.jdbc.pinned;

import dev.baton.LockInfo;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one pinning strategy supplies to {@link PinnedProtocol}: its statements, run on the attempt's
 * or the grant's own session. Everything around them (borrowing, waiting, cancelling, keeping or
 * discarding the connection) is the template's.
 */
interface PinnedStatements {

    /** A lock taken on the session: its token, its expiry and what release must know (the key, a setting). */
    record Taken(long token, Instant expiry, Object state) {}

    /** The database objects the strategy needs, each with a statement that fails when it is missing. */
    Map<String, String> probes();

    /** Runs once the schema exists, on the checking session. */
    default void prepare(JdbcSession db) throws SQLException {}

    /** Whether the lock lives in a transaction that stays open for the lease (pessimistic). */
    default boolean transaction() {
        return false;
    }

    /**
     * Whether an attempt that may wait tries first: true where the try is one cheap round trip on the
     * caller's thread (named locks), false where the wait statement costs no more than the try would
     * and a refused try would cost a rollback too (a row lock).
     */
    default boolean triesFirst() {
        return true;
    }

    /**
     * Takes the lock if it is free now, in one round trip where the database allows; else empty,
     * nothing held. By default a wait of zero, for databases whose wait statement takes a zero wait.
     */
    default Optional<Taken> tryOn(JdbcSession db, LockRequest request) throws SQLException {
        return waitOn(db, request, 0);
    }

    /**
     * Waits in the database's own queue at most {@code waitMillis} (on a helper thread, cancelled by
     * the template): the lock, or empty when the wait ran out holding nothing.
     */
    Optional<Taken> waitOn(JdbcSession db, LockRequest request, long waitMillis) throws SQLException;

    /** Gives back what a wait took as it was being cancelled; nothing when closing the session does. */
    default void undo(JdbcSession db, LockRequest request, Taken taken) throws SQLException {}

    /** Proves the session still holds the lock and bounds its idleness again: the new expiry, or empty. */
    Optional<Instant> renew(JdbcSession db, Grant grant, Object state, long leaseMillis) throws SQLException;

    /** Gives the lock back before the session is closed: whether it was still held. */
    boolean release(JdbcSession db, Grant grant, Object state) throws SQLException;

    /** Who holds the strategy's locks, as operators see them. */
    interface Holders {
        /** The held locks whose name starts with {@code prefix}. */
        List<LockInfo> list(String prefix);

        /** Breaks the grants of {@code name} by ending their holders' sessions. */
        List<LockInfo> forceRelease(String name, String ownerId);
    }

    Holders holders();
}
