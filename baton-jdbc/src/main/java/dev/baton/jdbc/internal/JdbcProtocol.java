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
 * One strategy's lock grants on one dialect, built once the schema is checked; the rest (permits,
 * notifications, the line) is {@code JdbcLockBackend}'s. A grant's later needs travel in {@link
 * Grant#backendState()}.
 */
public interface JdbcProtocol {

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

        /** As it is now: it shows the dialect once known. */
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

    /** Words a failure of {@code action} on a lock ({@code SchemaGate#failure}). */
    @FunctionalInterface
    interface Failures {
        LockUnavailableException failure(String lockName, String action, SQLException e);
    }

    /** Whether the released grant was still held. */
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

    /** Empty when the lock is busy. */
    Optional<Grant> tryAcquire(LockRequest request);

    /** Empty when the grant was lost. */
    Optional<Grant> renew(Grant grant, Duration leaseTime);

    Released release(Grant grant);

    /** Removes what an attempt whose outcome is unknown may have left behind. */
    default void abandon(LockRequest request) {}

    default Optional<LockInfo> inspect(String name) {
        return list(name).stream().filter(info -> info.name().equals(name)).findFirst();
    }

    /** As {@link dev.baton.spi.LockBackend#list}, without permits, which the backend lists. */
    List<LockInfo> list(String prefix);

    /** As {@link dev.baton.spi.LockBackend#forceRelease}, without permits, which the backend breaks. */
    List<LockInfo> forceRelease(String name, String ownerId);
}
