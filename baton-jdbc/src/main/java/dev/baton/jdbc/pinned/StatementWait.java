package dev.baton.jdbc.pinned;

import dev.baton.LockUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a blocking lock statement on a helper thread: one blocked in a socket read cannot be interrupted,
 * and the core's waiters must be. A wait ended early cancels the statement and, before it returns, gives
 * back a lock granted after all; a statement that outlives the cancel has its connection aborted.
 */
public final class StatementWait implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StatementWait.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** Gives back what a statement that completed despite the cancel took. */
    interface Undo<T> {
        void undo(T result) throws SQLException;
    }

    /** The wait was interrupted; the connection is clean, or was aborted and must be discarded. */
    static final class Interrupted extends InterruptedException {
        final boolean connectionUsable;

        Interrupted(boolean connectionUsable) {
            super("interrupted while waiting for the lock");
            this.connectionUsable = connectionUsable;
        }
    }

    private final Supplier<String> backendName;
    private final long operationTimeoutMillis;
    private final Set<Connection> waiting = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads;
    private volatile boolean closed;

    public StatementWait(String threadPrefix, Supplier<String> backendName, long operationTimeoutMillis) {
        this.backendName = backendName;
        this.operationTimeoutMillis = operationTimeoutMillis;
        this.threads = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, threadPrefix + "-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Waits at most {@code waitMillis} plus the operation timeout, then fails with SQLState 08006.
     *
     * @throws Interrupted if the caller was interrupted; the statement was cancelled and undone
     * @throws LockUnavailableException if the backend was closed before or during the wait
     */
    <T> T run(Connection connection, long waitMillis, String lockName, Callable<T> statement, Undo<T> undo)
            throws SQLException, Interrupted {
        long bound = waitMillis + operationTimeoutMillis + 1000;
        int networkBefore = connection.getNetworkTimeout();
        connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, bound));
        waiting.add(connection);
        Future<T> future = null;
        try {
            if (closed) {
                throw new RejectedExecutionException("closed");
            }
            future = threads.submit(statement);
            return future.get(bound, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            throw closedWhileWaiting(lockName, backendName.get(), e);
        } catch (InterruptedException e) {
            throw new Interrupted(stop(connection, future, undo));
        } catch (TimeoutException e) {
            stop(connection, future, undo);
            throw new SQLException("the lock wait did not end within " + bound + " ms", "08006", e);
        } catch (ExecutionException e) {
            if (closed) {
                throw closedWhileWaiting(lockName, backendName.get(), e.getCause());
            }
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw new SQLException("the lock wait failed: " + e.getCause(), e.getCause());
        } finally {
            waiting.remove(connection);
            restoreNetworkTimeout(connection, networkBefore);
        }
    }

    static LockUnavailableException closedWhileWaiting(String lockName, String backendName, Throwable cause) {
        return new LockUnavailableException(
                "Baton lock '" + lockName + "' on " + backendName
                        + ": the client was closed while waiting; create a new client to take locks",
                cause);
    }

    private void restoreNetworkTimeout(Connection connection, int before) {
        try {
            if (!connection.isClosed()) {
                connection.setNetworkTimeout(Runnable::run, before);
            }
        } catch (SQLException e) {
            debug("restoring the network timeout", e);
        }
    }

    /** Cancels the statement, awaits it and undoes a grant that slipped in: whether the connection is clean. */
    private <T> boolean stop(Connection connection, Future<T> future, Undo<T> undo) {
        boolean interrupted = Thread.interrupted();
        try {
            T result;
            try {
                result = cancelUntilDone(connection, future, operationTimeoutMillis + 1000);
            } catch (ExecutionException failed) {
                return true; // the cancelled statement failed, as expected: it took nothing
            }
            try {
                undo.undo(result);
                return true;
            } catch (SQLException e) {
                debug("giving back a lock granted during the cancel", e);
                abort(connection);
                return false;
            }
        } catch (TimeoutException | InterruptedException e) {
            interrupted |= e instanceof InterruptedException;
            abort(connection);
            return false;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Cancels every 50 ms until the statement ends: a cancel that arrives before it started is lost. */
    private <T> T cancelUntilDone(Connection connection, Future<T> future, long boundMillis)
            throws ExecutionException, TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
        while (true) {
            cancel(connection);
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw new TimeoutException("the cancelled statement did not end within " + boundMillis + " ms");
            }
            try {
                return future.get(Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(50)), TimeUnit.NANOSECONDS);
            } catch (TimeoutException stillRunning) {
            }
        }
    }

    private void abort(Connection connection) {
        try {
            connection.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            debug("aborting a waiting connection", e);
        }
    }

    /** The statement object lives on the helper thread; the drivers' connections cancel directly. */
    private void cancel(Connection connection) {
        try {
            if (connection.isWrapperFor(org.postgresql.PGConnection.class)) {
                connection.unwrap(org.postgresql.jdbc.PgConnection.class).cancelQuery();
                return;
            }
        } catch (SQLException | LinkageError e) {
            debug("cancelling a PostgreSQL wait", e);
        }
        try {
            if (connection.isWrapperFor(org.mariadb.jdbc.Connection.class)) {
                connection.unwrap(org.mariadb.jdbc.Connection.class).cancelCurrentQuery();
            }
        } catch (SQLException | LinkageError e) {
            debug("cancelling a MariaDB wait", e);
        }
    }

    private void debug(String what, Throwable e) {
        log.debug("Baton {}: {} failed: {}", backendName.get(), what, e.toString());
    }

    /** Cancels every running wait (their callers then see the backend closed) and ends the helpers. */
    @Override
    public void close() {
        closed = true;
        for (Connection connection : List.copyOf(waiting)) {
            cancel(connection);
        }
        threads.shutdown();
    }
}
