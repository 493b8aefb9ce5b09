package dev.baton.jdbc.row;

import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The database work of a fair hand-off ({@link HandOff}) in one dialect: PostgreSQL's single
 * statements, which NOTIFY the heir ({@link PgHandOffStatements}), or the short transactions of H2
 * and MariaDB, whose heir {@link HandOff} wakes in this JVM and a waiter elsewhere finds by polling
 * ({@link RowHandOffStatements}).
 */
interface HandOffStatements {
    /**
     * The plain acquire: grants when the lock is free and nobody live is ahead; empty when busy.
     * {@code contended}: this client met the name contended lately, so it is likely busy (a dialect
     * whose acquire is a transaction may look first).
     */
    Optional<Grant> acquire(LockRequest request, boolean contended) throws SQLException;

    /** Acquire-or-join, for a request that will wait; {@code channel} PostgreSQL's, or null. */
    HandOff.Joined join(LockRequest request, String channel) throws SQLException;

    /** The plain release: true if it freed the lock (nobody was counted in line). */
    boolean release(String name, String owner) throws SQLException;

    /** One run of the hand-off release: hands the lock to the head of the line, or frees it. */
    HandOff.HandedOn handOn(String name, String owner) throws SQLException;

    /**
     * The waiter's poll: whether it owns the lock, whether the lock is free, whether it is in line;
     * {@code refresh}: also keep its entry live (and purge dead ones). PostgreSQL always does both.
     */
    HandOff.Tick tick(LockRequest request, boolean refresh) throws SQLException;

    /** Leaves the line: false when the entry was gone (a release handed this waiter the lock first). */
    boolean leave(String name, String owner) throws SQLException;

    /**
     * Whether the hand-off release wakes the heir itself (PostgreSQL's NOTIFY); otherwise {@link
     * HandOff} wakes an heir waiting on the releasing backend ({@link JdbcLine#handedHere}), and the others poll with
     * a short backoff.
     */
    boolean notifiesHeir();
}
