package dev.baton.jdbc.row;

import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.util.Optional;

/** The database work of a fair {@link HandOff} in one dialect. */
interface HandOffStatements {
    /** Grants when the lock is free and nobody live is ahead; empty when busy. */
    Optional<Grant> acquire(LockRequest request) throws SQLException;

    /** Acquire-or-join, for a request that will wait; {@code channel} null unless PostgreSQL's listener is up. */
    HandOff.Joined join(LockRequest request, String channel) throws SQLException;

    /** The plain release: true if it freed the lock (nobody was counted in line). */
    boolean release(String name, String owner) throws SQLException;

    /** One run of the hand-off release: hands the lock to the head of the line, or frees it. */
    HandOff.HandedOn handOn(String name, String owner) throws SQLException;

    /** The waiter's poll; {@code refresh}: also keep its entry live and purge dead ones (PostgreSQL always does). */
    HandOff.Tick tick(LockRequest request, boolean refresh) throws SQLException;

    /** Leaves the line: false when the entry was gone (a release handed this waiter the lock first). */
    boolean leave(String name, String owner) throws SQLException;

    /** Whether the hand-off release wakes the heir itself (NOTIFY); otherwise the heir polls. */
    boolean notifiesHeir();
}
