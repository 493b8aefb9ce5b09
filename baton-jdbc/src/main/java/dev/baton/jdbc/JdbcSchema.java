package dev.baton.jdbc;

import dev.baton.LockConfigurationException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, and when allowed creates, the tables of the optimistic and advisory strategies and the
 * semaphore tables of every strategy from their DDL resources ({@code <strategy>-<dialect>.sql}, with {@code ${table}} standing for the configured
 * table name).
 */
final class JdbcSchema {
    private static final Logger log = LoggerFactory.getLogger(JdbcSchema.class);

    private JdbcSchema() {}

    /** The DDL of a strategy for a dialect, with the table name filled in. */
    static String ddl(Strategy strategy, Dialect dialect, TableNames names) {
        return ddl(strategy.key(), dialect, names);
    }

    /** The DDL of resource {@code <prefix>-<dialect>.sql} ({@code permits}: the semaphore tables). */
    static String ddl(String prefix, Dialect dialect, TableNames names) {
        String resource = prefix + "-" + dialect.name().toLowerCase(Locale.ROOT) + ".sql";
        try (InputStream in = JdbcSchema.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("baton-jdbc is missing its resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${table}", names.locks());
        } catch (IOException e) {
            throw new UncheckedIOException("baton-jdbc could not read its resource " + resource, e);
        }
    }

    /**
     * Makes sure {@code tables} exist.
     *
     * @throws LockConfigurationException if they are missing and cannot or may not be created; the
     *     message prints the DDL to run
     * @throws SQLException if the database could not be asked
     */
    static void ensure(
            Connection connection,
            String ddl,
            List<String> tables,
            boolean create,
            int queryTimeoutSeconds,
            String where)
            throws SQLException {
        List<String> missing = missing(connection, tables, queryTimeoutSeconds);
        if (missing.isEmpty()) {
            return;
        }
        if (!create) {
            throw new LockConfigurationException(where + ": the lock tables " + missing + " are missing and"
                    + " createSchema is false; run this DDL as a user allowed to create tables, or set"
                    + " createSchema=true:\n" + ddl);
        }
        log.info("{}: creating the lock tables {}", where, missing);
        SQLException firstFailure = null;
        for (String statement : TableLockBackend.statementsOf(ddl)) {
            try (Statement st = connection.createStatement()) {
                st.setQueryTimeout(queryTimeoutSeconds);
                st.execute(statement);
            } catch (SQLException e) {
                if (JdbcFailures.isConnection(e) || JdbcFailures.isTimeout(e)) {
                    throw e;
                }
                // Usually another client creating the same table at the same moment; the probe decides.
                if (firstFailure == null) {
                    firstFailure = e;
                }
            }
        }
        List<String> stillMissing = missing(connection, tables, queryTimeoutSeconds);
        if (!stillMissing.isEmpty()) {
            throw new LockConfigurationException(
                    where + ": creating the lock tables " + stillMissing + " failed"
                            + (firstFailure == null ? "" : " [" + firstFailure.getMessage() + "]")
                            + "; run this DDL as a user allowed to create tables:\n" + ddl,
                    firstFailure);
        }
    }

    private static List<String> missing(Connection connection, List<String> tables, int timeout) throws SQLException {
        List<String> missing = new ArrayList<>();
        for (String table : tables) {
            try (Statement st = connection.createStatement()) {
                st.setQueryTimeout(timeout);
                st.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
            } catch (SQLException e) {
                if (!JdbcFailures.isMissingObject(e)) {
                    throw e;
                }
                missing.add(table);
            }
        }
        return missing;
    }
}
