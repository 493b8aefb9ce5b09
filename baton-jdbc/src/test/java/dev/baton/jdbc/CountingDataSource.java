package dev.baton.jdbc;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource that counts the statements with an UPDATE run through it (H2's renewals are a SELECT
 * over an UPDATE), and records every statement run through it with the thread that ran it: what a
 * backend sends, not how long it takes.
 */
final class CountingDataSource implements DataSource {
    private final Source source;
    /** What the DataSource methods other than getConnection() answer from; null for a bare source. */
    private final DataSource target;

    private final AtomicInteger updates = new AtomicInteger();
    private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();

    /** One statement run: its SQL and the thread that ran it. */
    record Run(String sql, Thread thread) {}

    /** Where the connections come from: a DataSource, or Baton's own pool, which is none. */
    @FunctionalInterface
    interface Source {
        Connection getConnection() throws SQLException;
    }

    CountingDataSource(DataSource target) {
        this.source = target::getConnection;
        this.target = target;
    }

    CountingDataSource(Source source) {
        this.source = source;
        this.target = null;
    }

    private DataSource target() throws SQLException {
        if (target == null) {
            throw new SQLFeatureNotSupportedException("this CountingDataSource counts a pool that is no DataSource");
        }
        return target;
    }

    /** Statements with an UPDATE executed since the last call; counts afresh from then. */
    int takeUpdates() {
        return updates.getAndSet(0);
    }

    /** The statements run since the last call, in order; records afresh from then. */
    List<Run> takeRuns() {
        List<Run> taken = new ArrayList<>();
        for (Run run = runs.poll(); run != null; run = runs.poll()) {
            taken.add(run);
        }
        return taken;
    }

    /** The SQL of the statements run since the last call that the current thread ran. */
    List<String> takeRunsOfThisThread() {
        return takeRuns().stream()
                .filter(r -> r.thread() == Thread.currentThread())
                .map(Run::sql)
                .toList();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return counting(source.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return counting(target().getConnection(username, password));
    }

    private Connection counting(Connection connection) {
        return proxy(Connection.class, connection, (method, args, result) -> {
            if (method.getName().equals("prepareStatement") && result instanceof PreparedStatement statement) {
                String sql = (String) args[0];
                boolean update = sql.toUpperCase(Locale.ROOT).contains("UPDATE ");
                return proxy(PreparedStatement.class, statement, (executed, ignored, value) -> {
                    if (executed.getName().startsWith("execute")) {
                        runs.add(new Run(sql, Thread.currentThread()));
                        if (update) {
                            updates.incrementAndGet();
                        }
                    }
                    return value;
                });
            }
            if (method.getName().equals("createStatement") && result instanceof Statement statement) {
                return proxy(Statement.class, statement, (executed, executedArgs, value) -> {
                    if (executed.getName().startsWith("execute")) {
                        runs.add(new Run((String) executedArgs[0], Thread.currentThread()));
                    }
                    return value;
                });
            }
            return result;
        });
    }

    /** What to return from a call, given its method, arguments and the target's result. */
    @FunctionalInterface
    private interface After {
        Object apply(Method method, Object[] args, Object result);
    }

    private static <T> T proxy(Class<T> type, T target, After after) {
        InvocationHandler handler = (proxy, method, args) -> {
            try {
                return after.apply(method, args, method.invoke(target, args));
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target().getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target().setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target().setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target().getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() {
        return Logger.getLogger(Logger.GLOBAL_LOGGER_NAME);
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return target().unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return target().isWrapperFor(type);
    }
}
