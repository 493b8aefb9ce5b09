package dev.baton.jdbc;

import dev.baton.LockUnavailableException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * What every call of the JDBC backend passes first: refused once the backend is closed; otherwise the
 * result of its schema check (the protocol for the detected dialect, ...), which runs once, by one
 * caller at a time, and runs again after a statement finds a lock table missing (dropped while in
 * use), so that the next call checks and perhaps creates the schema again.
 *
 * <p>It also words every failure of the backend the same way: the lock, the backend, the action
 * and {@link JdbcFailures#explain what to do}.
 *
 * @param <T> what the check yields; never null
 */
final class SchemaGate<T> {
    /** A schema check, run with no other check of the same gate at the same time. */
    interface Check<T> {
        T run() throws SQLException;
    }

    private final Supplier<String> backendName;
    /** What the names passed in are, for messages: {@code lock} or {@code semaphore}. */
    private final String noun;

    private final Duration operationTimeout;
    private final TableNames names;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Held while checking, which talks to the database: a lock, not a monitor. */
    private final ReentrantLock checking = new ReentrantLock();

    private volatile T checked;

    SchemaGate(Supplier<String> backendName, Duration operationTimeout, TableNames names) {
        this(backendName, "lock", operationTimeout, names);
    }

    /** @param noun what the names passed in are, for messages ({@code semaphore}) */
    SchemaGate(Supplier<String> backendName, String noun, Duration operationTimeout, TableNames names) {
        this.backendName = backendName;
        this.noun = noun;
        this.operationTimeout = operationTimeout;
        this.names = names;
    }

    /**
     * The check's result, running it first if it has not succeeded yet.
     *
     * @throws LockUnavailableException when the backend is closed, or the check failed
     */
    T pass(String lockName, Check<T> check) {
        requireOpen(lockName);
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

    /** @throws LockUnavailableException naming the lock if the backend is closed */
    void requireOpen(String lockName) {
        if (closed.get()) {
            throw new LockUnavailableException("Baton " + noun + " '" + lockName + "' on " + backendName.get()
                    + ": the backend is closed; create a new client to take locks again");
        }
    }

    boolean isClosed() {
        return closed.get();
    }

    /** Closes the gate; true only for the first call, which then releases the backend's resources. */
    boolean close() {
        return closed.compareAndSet(false, true);
    }

    /**
     * The failure of {@code action} on a lock, with what to do about it; a missing lock table also
     * makes the next call check the schema again.
     */
    LockUnavailableException failure(String lockName, String action, SQLException e) {
        if (JdbcFailures.isMissingObject(e)) {
            checked = null;
        }
        return new LockUnavailableException(
                "Baton " + noun + " '" + lockName + "' on " + backendName.get() + ": " + action + " failed: "
                        + JdbcFailures.explain(e, operationTimeout, names),
                e);
    }
}
