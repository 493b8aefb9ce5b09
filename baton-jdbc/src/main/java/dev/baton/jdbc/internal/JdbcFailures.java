package dev.baton.jdbc.internal;

import dev.baton.jdbc.internal.ReconnectingPool.PoolExhaustedException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Sorts SQL failures by SQLState and vendor code, which do not collide across the dialects (a failure
 * can come before the dialect is known); every check walks the cause chain, since pools wrap the
 * driver's exception.
 */
public final class JdbcFailures {

    private static final Set<String> CONFLICT_STATES = Set.of(
            "40001", // serialization failure (both); H2 deadlock
            "40P01", // PostgreSQL deadlock detected
            "55P03", // PostgreSQL lock_not_available (lock_timeout)
            "HYT00", // H2 lock timeout
            "90131"); // H2 concurrent update

    private static final int H2_LOCK_TIMEOUT = 50200;
    private static final int MARIADB_LOCK_WAIT_TIMEOUT = 1205; // also NOWAIT
    private static final int MARIADB_DEADLOCK = 1213;
    private static final int MARIADB_DUPLICATE_KEY = 1062;
    private static final int MARIADB_UNKNOWN_DATABASE = 1049;

    /** PostgreSQL undefined table (or sequence in nextval); H2 table (three forms), sequence, schema not found. */
    private static final Set<String> MISSING_OBJECT_STATES =
            Set.of("42P01", "42S02", "42S03", "42S04", "90036", "90079");

    private static final Set<String> AUTHENTICATION_STATES = Set.of("28000", "28P01");
    private static final int H2_WRONG_USER_OR_PASSWORD = 28000;
    /** H2: the database file is open in another process ("The file is locked"). */
    private static final String H2_DATABASE_IN_USE = "90020";
    /** PostgreSQL invalid_catalog_name, H2 DATABASE_NOT_FOUND (with IFEXISTS) and its remote form. */
    private static final Set<String> MISSING_DATABASE_STATES = Set.of("3D000", "90146", "90149");
    /** H2: a setting of the URL it does not know. */
    private static final String H2_UNSUPPORTED_SETTING = "90113";

    /** H2's client reports an unreachable or lost server with its own state, not class 08. */
    private static final String H2_CONNECTION_BROKEN = "90067";

    /** Also H2's closed database and its shutdown, which is what a cut remote session reports. */
    private static final Set<String> H2_BROKEN_CONNECTION_STATES = Set.of(H2_CONNECTION_BROKEN, "90098", "90121");

    /** PostgreSQL ended the backend: administrator, crash, idle_session_timeout, idle-in-transaction timeout. */
    private static final Set<String> SESSION_ENDED_STATES = Set.of("57P01", "57P02", "57P05", "25P03");

    /** PostgreSQL insufficient privilege, H2 not enough rights. */
    private static final Set<String> PERMISSION_STATES = Set.of("42501", "90096");

    private JdbcFailures() {}

    public static boolean isConflict(SQLException e) {
        return any(
                e,
                s -> in(CONFLICT_STATES, s)
                        || s.getErrorCode() == H2_LOCK_TIMEOUT
                        || s.getErrorCode() == MARIADB_LOCK_WAIT_TIMEOUT
                        || s.getErrorCode() == MARIADB_DEADLOCK);
    }

    public static boolean isDuplicateKey(SQLException e) {
        return "23505".equals(e.getSQLState())
                || ("23000".equals(e.getSQLState()) && e.getErrorCode() == MARIADB_DUPLICATE_KEY);
    }

    public static boolean isMissingObject(SQLException e) {
        return any(e, s -> in(MISSING_OBJECT_STATES, s));
    }

    public static boolean isTimeout(SQLException e) {
        // 70100: MariaDB's max_statement_time, which its driver uses for query timeouts.
        return any(
                e,
                s -> s instanceof SQLTimeoutException
                        || "57014".equals(s.getSQLState())
                        || "70100".equals(s.getSQLState()));
    }

    static boolean isConnection(SQLException e) {
        return any(
                e,
                s -> s instanceof SQLTransientConnectionException
                        || (s.getSQLState() != null && s.getSQLState().startsWith("08"))
                        || H2_CONNECTION_BROKEN.equals(s.getSQLState()));
    }

    /** Also H2's states for a lost remote session, which HikariCP would otherwise hand out again. */
    static boolean isBrokenConnection(SQLException e) {
        return any(
                e,
                s -> (s.getSQLState() != null && s.getSQLState().startsWith("08"))
                        || in(H2_BROKEN_CONNECTION_STATES, s));
    }

    public static boolean causedByBrokenConnection(Throwable failure) {
        return anyCause(failure, t -> t instanceof SQLException e && isBrokenConnection(e));
    }

    /**
     * Whether the session has ended, taking its session locks and transaction with it (the idle
     * timeouts are how a pinned lease's session ends when its holder went silent for the lease time).
     */
    public static boolean isSessionEnded(SQLException e) {
        return isBrokenConnection(e) || isConnection(e) || any(e, s -> in(SESSION_ENDED_STATES, s));
    }

    public static boolean isPermission(SQLException e) {
        return any(e, s -> in(PERMISSION_STATES, s));
    }

    /** Whether a wait was cut short by {@link Thread#interrupt()} (pools report it as SQLException). */
    static boolean isInterrupt(SQLException e) {
        return anyCause(e, t -> t instanceof InterruptedException);
    }

    /** What went wrong and what to do, with the root SQL error's first line and never a password. */
    public static String explain(SQLException e, Duration operationTimeout, TableNames names) {
        String what = cause(e, operationTimeout, names);
        return e instanceof PoolExhaustedException ? what : what + " [" + describe(root(e)) + "]";
    }

    private static String cause(SQLException e, Duration operationTimeout, TableNames names) {
        if (any(e, s -> in(AUTHENTICATION_STATES, s) || s.getErrorCode() == H2_WRONG_USER_OR_PASSWORD)) {
            return "authentication failed: the database rejected the user name or password; check the"
                    + " credentials in the JDBC URL or the DataSource";
        }
        if (isPermission(e)) {
            return "the database user lacks privileges; grant it SELECT, INSERT, UPDATE and DELETE on " + names.locks()
                    + " and " + names.readers() + " and USAGE on " + names.sequence();
        }
        if (isMissingObject(e)) {
            return "the lock tables are missing (dropped while in use?); the client checked them once and"
                    + " does not create them again: run their DDL, or restart it with createSchema=true";
        }
        String connection = connectionFailure(e, operationTimeout);
        if (connection != null) {
            return connection;
        }
        if (isTimeout(e)) {
            return "the database did not answer within the operation timeout (" + operationTimeout
                    + "); check the server's health and the network, or raise LockOptions.operationTimeout";
        }
        if (isConflict(e)) {
            return "the database reported a conflict with a concurrent transaction; the client retries"
                    + " while the lease is valid";
        }
        return "the database refused the request; check the JDBC URL, the credentials and the server's log";
    }

    /** Why no connection was had, most specific first; null when {@code e} is no connection failure. */
    private static String connectionFailure(SQLException e, Duration operationTimeout) {
        if (any(e, s -> H2_DATABASE_IN_USE.equals(s.getSQLState()))) {
            return "the database file is in use by another process (H2 lets one process open a file database);"
                    + " add ;AUTO_SERVER=TRUE to the URL of every process that opens it, or run an H2 server"
                    + " and connect with jdbc:h2:tcp://";
        }
        if (any(e, s -> in(MISSING_DATABASE_STATES, s) || s.getErrorCode() == MARIADB_UNKNOWN_DATABASE)) {
            return "the database does not exist; check the database name in the JDBC URL, or create it";
        }
        if (any(e, s -> H2_UNSUPPORTED_SETTING.equals(s.getSQLState()))) {
            return "H2 does not know a setting of the JDBC URL; correct or remove it (Baton's options are"
                    + " strategy, table, createSchema, advisoryHolders, clientName and fair)";
        }
        if (!isConnection(e)) {
            return null;
        }
        if (e instanceof PoolExhaustedException) {
            return "no connection within the operation timeout (" + operationTimeout + ") because "
                    + e.getMessage() + "; on the advisory and pessimistic strategies each held lease keeps"
                    + " one: release leases sooner, or spread them over more clients";
        }
        if (root(e) == e && e instanceof SQLTransientConnectionException) {
            return "no connection to the database within the operation timeout (" + operationTimeout + ");"
                    + " check the host and port in the JDBC URL, that the server is running and that the"
                    + " network lets this host reach it";
        }
        return "cannot connect to the database server; check the host and port in the JDBC URL and that the"
                + " server is running and reachable";
    }

    private static SQLException root(SQLException e) {
        SQLException deepest = e;
        for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
            if (t instanceof SQLException sql) {
                deepest = sql;
            }
        }
        return deepest;
    }

    private static String describe(SQLException e) {
        String message = String.valueOf(e.getMessage()).strip();
        int newline = message.indexOf('\n');
        if (newline >= 0) {
            message = message.substring(0, newline).strip();
        }
        return "SQLState " + e.getSQLState() + ": " + redact(message);
    }

    /** The URL with any password replaced by {@code ***}, for messages and logs. */
    public static String redact(String text) {
        return text.replaceAll("(?i)(password=)[^&;\\s]*", "$1***").replaceAll("://([^/@:]*):[^/@]*@", "://$1:***@");
    }

    private static boolean in(Set<String> states, SQLException e) {
        return e.getSQLState() != null && states.contains(e.getSQLState());
    }

    private static boolean any(SQLException e, Predicate<SQLException> test) {
        return anyCause(e, t -> t instanceof SQLException sql && test.test(sql));
    }

    private static boolean anyCause(Throwable failure, Predicate<Throwable> test) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 10; t = t.getCause(), depth++) {
            if (test.test(t)) {
                return true;
            }
        }
        return false;
    }
}
