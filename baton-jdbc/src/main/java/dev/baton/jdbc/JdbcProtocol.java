package dev.baton.jdbc;

import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockInfo;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * One JDBC strategy's wire protocol for lock grants on one dialect: how its rows, row locks or named
 * locks are taken, renewed and released. Everything around it (the schema check, semaphore permits,
 * notifications, the fair queue, batch renewal, close and the wording of failures) belongs to
 * {@link JdbcLockBackend}, which builds the protocol once the dialect is known and its schema exists.
 *
 * <p>A protocol keeps no state of its own beyond its statements: it may be built again after its
 * tables went missing. Whatever a grant needs later (a pinned connection) travels in {@link
 * Grant#backendState()}.
 */
interface JdbcProtocol {

    /** The backend's parts a protocol works with. */
    record Context(
            Dialect dialect,
            TableNames names,
            boolean fair,
            JdbcConnections connections,
            PgNotifications notifications,
            StatementWait waits,
            Supplier<String> backend,
            BooleanSupplier closed,
            Failures failures) {

        LockUnavailableException failure(String lockName, String action, SQLException e) {
            return failures.failure(lockName, action, e);
        }

        /** The backend's name as it is now (it shows the dialect once known). */
        String backendName() {
            return backend.get();
        }
    }

    /** Words a failure of {@code action} on a lock (see {@link SchemaGate#failure}). */
    @FunctionalInterface
    interface Failures {
        LockUnavailableException failure(String lockName, String action, SQLException e);
    }

    /**
     * What a release did: whether the grant was still held, and the owner id of the waiter the
     * release handed the lock to in the same statement, or null when it only freed it. (No protocol
     * hands over yet; the backend would then wake that one waiter only.)
     */
    record Released(boolean held, String handedTo) {
        static final Released HELD = new Released(true, null);
        static final Released NOT_HELD = new Released(false, null);

        static Released of(boolean held) {
            return held ? HELD : NOT_HELD;
        }
    }

    /** The database objects the protocol needs, each with a statement that fails when it is missing. */
    Map<String, String> probes();

    /** Runs once the schema exists, on the checking connection (MariaDB reads its database's name). */
    default void prepare(JdbcSession db) throws SQLException {}

    /** Takes the lock if it is free now; empty when it is busy. */
    Optional<Grant> tryAcquire(LockRequest request);

    /**
     * Waits in the database's own queue, at most {@code timeoutNanos} (negative: without limit); only
     * for strategies that queue waiters ({@link Strategy#queuesWaiters()}).
     */
    default Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        throw new UnsupportedOperationException(
                request.name() + ": this protocol does not queue waiters; the core polls tryAcquire");
    }

    /** Renews one grant; empty when it was lost. */
    Optional<Grant> renew(Grant grant, Duration leaseTime);

    /**
     * The statement that renews many exclusive grants at once up to its IN list (? = lease, then each
     * grant's {@link #renewKey}), or null when grants are renewed one by one.
     */
    default String renewIn() {
        return null;
    }

    /** The values of {@link #renewIn}'s IN list for one grant. */
    default List<Object> renewKey(Grant grant) {
        return List.of(grant.name(), grant.ownerId());
    }

    Released release(Grant grant);

    /** Removes what an attempt whose outcome is unknown may have left behind. */
    default void abandon(LockRequest request) {}

    default Optional<LockInfo> inspect(String name) {
        return Optional.empty();
    }

    /** The fair queue's statements (see {@link FairQueue}), or null when the protocol has no queue table. */
    default WaiterStatements waiters() {
        return null;
    }

    /** The query, up to its IN list of names, returning the listed locks that are held ({@link FairQueue}). */
    default String heldIn() {
        return null;
    }
}
