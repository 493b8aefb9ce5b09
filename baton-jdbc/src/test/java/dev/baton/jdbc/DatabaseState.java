package dev.baton.jdbc;

import dev.baton.servers.DatabaseServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * A database server's sessions and locks, read over a connection of its own, for the report of a
 * failed kit test ({@code LockBackendFixture.serverState}): on PostgreSQL every other session of the
 * database with what it waits for and who blocks it ({@code pg_blocking_pids}), and every lock held or
 * awaited; on MariaDB the process list. H2 runs inside the test JVM, where a thread dump says more.
 *
 * <p>Bounded: the connection and each query time out after 5 s; a failure to read is reported in the
 * text.
 */
final class DatabaseState {
    private static final int TIMEOUT_SECONDS = 5;

    private static final String PG_SESSIONS =
            """
            select pid, usename, state, wait_event_type, wait_event, pg_blocking_pids(pid) as blocked_by,
                   now() - xact_start as in_transaction_for, now() - query_start as query_for,
                   left(regexp_replace(query, '\\s+', ' ', 'g'), 160) as query
            from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid()
            order by pid""";

    private static final String PG_LOCKS =
            """
            select pid, locktype, mode, granted, relation::regclass as relation, classid, objid, objsubid,
                   transactionid
            from pg_locks
            where pid <> pg_backend_pid() and locktype <> 'virtualxid'
            order by granted, pid""";

    private static final String MARIADB_PROCESSES =
            """
            select id, user, command, time, state, left(info, 160) as info
            from information_schema.processlist
            where id <> connection_id()
            order by id""";

    private DatabaseState() {}

    /** The state of {@code server} as text, or an empty string for a database without a report here. */
    static String of(DatabaseServer server) {
        String url = server.jdbcUrl();
        if (url.startsWith("jdbc:postgresql:")) {
            // pgjdbc's timeouts are in seconds
            return read(
                    server,
                    timeouts(TIMEOUT_SECONDS),
                    "sessions (pg_stat_activity)",
                    PG_SESSIONS,
                    "locks (pg_locks)",
                    PG_LOCKS);
        }
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            // MariaDB Connector/J's in milliseconds
            return read(server, timeouts(TIMEOUT_SECONDS * 1000), "sessions (processlist)", MARIADB_PROCESSES);
        }
        return "";
    }

    /** The connect and socket timeouts, in the driver's unit. */
    private static Properties timeouts(int value) {
        Properties timeouts = new Properties();
        timeouts.setProperty("connectTimeout", Integer.toString(value));
        timeouts.setProperty("socketTimeout", Integer.toString(value));
        return timeouts;
    }

    /** Runs each query (title, SQL, title, SQL...) and prints its rows under its title. */
    private static String read(DatabaseServer server, Properties properties, String... titlesAndQueries) {
        properties.setProperty("user", server.user());
        properties.setProperty("password", server.password());
        StringBuilder text = new StringBuilder();
        try (Connection connection = DriverManager.getConnection(server.jdbcUrl(), properties);
                Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(TIMEOUT_SECONDS);
            for (int i = 0; i < titlesAndQueries.length; i += 2) {
                text.append(titlesAndQueries[i]).append(":\n");
                try (ResultSet rows = statement.executeQuery(titlesAndQueries[i + 1])) {
                    appendRows(rows, text);
                }
            }
        } catch (SQLException e) {
            text.append("(could not read the server's state: ").append(e).append(")\n");
        }
        return text.toString();
    }

    private static void appendRows(ResultSet rows, StringBuilder text) throws SQLException {
        ResultSetMetaData columns = rows.getMetaData();
        while (rows.next()) {
            text.append("  ");
            for (int c = 1; c <= columns.getColumnCount(); c++) {
                Object value = rows.getObject(c);
                if (value != null) {
                    text.append(columns.getColumnLabel(c))
                            .append('=')
                            .append(value)
                            .append(' ');
                }
            }
            text.append('\n');
        }
    }
}
