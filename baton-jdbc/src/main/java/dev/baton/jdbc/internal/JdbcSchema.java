package dev.baton.jdbc.internal;

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
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Checks, and when allowed creates, the backend's database objects from its DDL resources. */
public final class JdbcSchema {
    private static final Logger log = LoggerFactory.getLogger(JdbcSchema.class);

    private JdbcSchema() {}

    /** The DDL of resource {@code dev/baton/jdbc/<prefix>-<dialect>.sql}, as the docs tell users. */
    public static String ddl(String prefix, Dialect dialect, TableNames names) {
        String resource = "/dev/baton/jdbc/" + prefix + "-" + dialect.name().toLowerCase(Locale.ROOT) + ".sql";
        try (InputStream in = JdbcSchema.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("baton-jdbc is missing its resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replace("${table}", names.locks())
                    .replace("${readers}", names.readers())
                    .replace("${sequence}", names.sequence());
        } catch (IOException e) {
            throw new UncheckedIOException("baton-jdbc could not read its resource " + resource, e);
        }
    }

    /**
     * Makes sure the objects of {@code probes} (name to a statement that fails when it is missing)
     * exist, running {@code ddl} when {@code create}; else throws LockConfigurationException with the
     * DDL to run. {@code where} starts every message.
     */
    public static void ensure(
            Connection connection,
            String ddl,
            Map<String, String> probes,
            boolean create,
            int queryTimeoutSeconds,
            String where,
            Function<SQLException, String> explain)
            throws SQLException {
        List<String> missing = missing(connection, probes, queryTimeoutSeconds);
        if (missing.isEmpty()) {
            return;
        }
        if (!create) {
            throw new LockConfigurationException(where + ": the lock tables are missing " + missing
                    + " and createSchema is false; run this DDL as a user allowed to create tables, or set"
                    + " createSchema=true:\n" + ddl);
        }
        log.info("{}: creating the lock tables {}", where, missing);
        SQLException firstFailure = null;
        for (String statement : statementsOf(ddl)) {
            try (Statement st = connection.createStatement()) {
                st.setQueryTimeout(queryTimeoutSeconds);
                st.execute(statement);
            } catch (SQLException e) {
                if (JdbcFailures.isConnection(e) || JdbcFailures.isTimeout(e)) {
                    throw e;
                }
                // Usually another client creating it at the same moment despite IF NOT EXISTS; the
                // probe below decides.
                log.debug(
                        "{}: {} failed, checking whether another client created it: {}",
                        where,
                        statement,
                        e.toString());
                if (firstFailure == null) {
                    firstFailure = e;
                }
            }
        }
        List<String> stillMissing = missing(connection, probes, queryTimeoutSeconds);
        if (!stillMissing.isEmpty()) {
            throw new LockConfigurationException(
                    where + ": creating the lock tables " + stillMissing + " failed"
                            + (firstFailure == null ? "" : ": " + explain.apply(firstFailure))
                            + "; run this DDL as a user allowed to create tables:\n" + ddl,
                    firstFailure);
        }
    }

    private static List<String> missing(Connection connection, Map<String, String> probes, int timeout)
            throws SQLException {
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, String> probe : probes.entrySet()) {
            try (Statement st = connection.createStatement()) {
                st.setQueryTimeout(timeout);
                st.executeQuery(probe.getValue()).close();
            } catch (SQLException e) {
                if (!JdbcFailures.isMissingObject(e)) {
                    throw e;
                }
                missing.add(probe.getKey());
            }
        }
        missing.sort(null);
        return missing;
    }

    /** A probe for a table (or, except on H2, a sequence): fails when it does not exist. */
    public static String probe(String table) {
        return "SELECT 1 FROM " + table + " WHERE 1 = 0";
    }

    /** The DDL file split into statements, without comments. */
    public static List<String> statementsOf(String ddl) {
        StringBuilder code = new StringBuilder();
        for (String line : ddl.split("\n")) {
            int comment = line.indexOf("--");
            code.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
        }
        List<String> statements = new ArrayList<>();
        for (String statement : code.toString().split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement.strip());
            }
        }
        return statements;
    }
}
