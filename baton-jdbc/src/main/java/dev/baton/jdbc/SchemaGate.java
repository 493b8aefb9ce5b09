package dev.baton.jdbc;

import dev.baton.LockUnavailableException;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.TableNames;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What every call of the JDBC backend passes first: refused once closed, else the (non-null) result of
 * the schema check, which runs by one caller at a time until it succeeds. It also words every failure
 * alike, with the DDL to run for a table dropped while in use.
 */
final class SchemaGate<T> {
    interface Check<T> {
        T run() throws SQLException;
    }

    private final Supplier<String> backendName;
    private final String noun;
    private final Duration operationTimeout;
    private final TableNames names;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Held while checking, which does I/O: a lock, not a monitor. */
    private final ReentrantLock checking = new ReentrantLock();

    private final Function<T, String> ddl;
    private volatile T checked;

    /** {@code noun} is what the names passed in are, for messages: {@code lock} or {@code semaphore}. */
    SchemaGate(
            Supplier<String> backendName,
            String noun,
            Duration operationTimeout,
            TableNames names,
            Function<T, String> ddl) {
        this.backendName = backendName;
        this.noun = noun;
        this.operationTimeout = operationTimeout;
        this.names = names;
        this.ddl = ddl;
    }

    /** Runs the check if it has not succeeded yet. */
    T pass(String lockName, Check<T> check) {
        if (closed.get()) {
            throw new LockUnavailableException("Baton " + noun + " '" + lockName + "' on " + backendName.get()
                    + ": the backend is closed; create a new client to take locks again");
        }
        T known = checked;
        if (known != null) {
            return known;
        }
        checking.lock();
        try {
            if (checked == null) {
                try {
                    checked = check.run();
                } catch (SQLException e) {
                    throw failure(lockName, "checking the lock tables", e);
                }
            }
            return checked;
        } finally {
            checking.unlock();
        }
    }

    boolean isClosed() {
        return closed.get();
    }

    /** Closes the gate; true only for the first call, which then releases the backend's resources. */
    boolean close() {
        return closed.compareAndSet(false, true);
    }

    LockUnavailableException failure(String lockName, String action, SQLException e) {
        T known = checked;
        String recreate = known != null && JdbcFailures.isMissingObject(e) ? ddl.apply(known) : null;
        return new LockUnavailableException(
                "Baton " + noun + " '" + lockName + "' on " + backendName.get() + ": " + action + " failed: "
                        + JdbcFailures.explain(e, operationTimeout, names)
                        + (recreate == null ? "" : "; run this DDL:\n" + recreate),
                e);
    }
}
