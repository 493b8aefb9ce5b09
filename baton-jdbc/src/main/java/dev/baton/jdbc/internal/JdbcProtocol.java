package dev.baton.jdbc.internal;

import dev.baton.LockInfo;
import dev.baton.LockUnavailableException;
import dev.baton.jdbc.pinned.StatementWait;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One JDBC strategy's wire protocol for lock grants on one dialect, built once per backend when its
 * schema has been checked; what the backend asks of both families ({@code RowProtocol} and {@link
 * dev.baton.jdbc.pinned.PinningProtocol}). Everything around it (schema, permits, notifications, the
 * line, failures) belongs to {@code JdbcLockBackend}. What a grant needs later (a pinned connection)
 * travels in {@link Grant#backendState()}.
 */
public interface JdbcProtocol {

    /** The backend's parts a protocol works with. */
    record Context(
            Dialect dialect,
            TableNames names,
            boolean fair,
            boolean advisoryHolders,
            JdbcConnections connections,
            PgNotifications notifications,
            StatementWait waits,
            Consumer<Grant> heirs,
            Supplier<String> backend,
            BooleanSupplier closed,
            Failures failures) {

        public LockUnavailableException failure(String lockName, String action, SQLException e) {
            return failures.failure(lockName, action, e);
        }

        /** The same parts on {@code dialect}, once it is known (advisory holders are PostgreSQL's only). */
        public Context on(Dialect dialect) {
            boolean holders = advisoryHolders && dialect == Dialect.POSTGRESQL;
            return new Context(
                    dialect, names, fair, holders, connections, notifications, waits, heirs, backend, closed, failures);
        }

        /** The backend's name as it is now (it shows the dialect once known). */
        public String backendName() {
            return backend.get();
        }
    }

    /** Parameters, the elements of the arrays among them spliced in (the holder's, the guard's). */
    static Object[] params(Object... parts) {
        List<Object> all = new ArrayList<>(parts.length + 4);
        for (Object part : parts) {
            if (part instanceof Object[] array) {
                all.addAll(Arrays.asList(array));
            } else {
                all.add(part);
            }
        }
        return all.toArray();
    }

    /** Words a failure of {@code action} on a lock (see {@code SchemaGate#failure}). */
    @FunctionalInterface
    interface Failures {
        LockUnavailableException failure(String lockName, String action, SQLException e);
    }

    /** What a release did: whether the grant was still held. */
    record Released(boolean held) {
        public static final Released HELD = new Released(true);
        public static final Released NOT_HELD = new Released(false);

        public static Released of(boolean held) {
            return held ? HELD : NOT_HELD;
        }
    }

    /** The database objects the protocol needs, each with a statement that fails when it is missing. */
    Map<String, String> probes();

    /** Runs once the schema exists, on the checking connection (MariaDB reads its database's name). */
    default void prepare(JdbcSession db) throws SQLException {}

    /** Takes the lock if it is free now; empty when it is busy. */
    Optional<Grant> tryAcquire(LockRequest request);

    /** Renews one grant; empty when it was lost. */
    Optional<Grant> renew(Grant grant, Duration leaseTime);

    Released release(Grant grant);

    /** Removes what an attempt whose outcome is unknown may have left behind. */
    default void abandon(LockRequest request) {}

    /** The name's grant, or empty. */
    default Optional<LockInfo> inspect(String name) {
        return list(name).stream().filter(info -> info.name().equals(name)).findFirst();
    }

    /**
     * The held locks whose name starts with {@code prefix}, in this protocol's form, sorted by name
     * and kind ({@link dev.baton.spi.LockBackend#list}); permits are listed by the backend.
     */
    List<LockInfo> list(String prefix);

    /**
     * Breaks the grants of {@code name} ({@link dev.baton.spi.LockBackend#forceRelease}); permits are
     * broken by the backend.
     */
    List<LockInfo> forceRelease(String name, String ownerId);
}
