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
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way the JDBC backend checks, and when allowed creates, its database objects: every
 * strategy's and the semaphores' DDL resources ({@code <prefix>-<dialect>.sql}, with {@code
 * ${table}}, {@code ${readers}} and {@code ${sequence}} standing for the configured names), probed
 * object by object.
 */
final class JdbcSchema {
    private static final Logger log = LoggerFactory.getLogger(JdbcSchema.class);

    private JdbcSchema() {}

    /** The DDL of resource {@code <prefix>-<dialect>.sql} ({@code permits}: the semaphore tables). */
    static String ddl(String prefix, Dialect dialect, TableNames names) {
        String resource = prefix + "-" + dialect.name().toLowerCase(Locale.ROOT) + ".sql";
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
     * The whole check of a protocol's schema: its objects ({@link #ensure}), the columns of a newer
     * version ({@link #upgrade}) and, where grants record holders, the holder column ({@link
     * #holderColumns}).
     *
     * @return whether the tables of grants have the holder column
     */
    static boolean check(
            Connection connection,
            String ddl,
            JdbcProtocol protocol,
            boolean create,
            boolean recordsHolders,
            JdbcConnections connections,
            TableNames names,
            String where)
            throws SQLException {
        int timeout = connections.queryTimeoutSeconds;
        ensure(
                connection,
                ddl,
                protocol.probes(),
                create,
                timeout,
                where,
                e -> JdbcFailures.explain(e, connections.operationTimeout, names));
        upgrade(connection, protocol.upgrades(), create, timeout, where);
        return recordsHolders && holderColumns(connection, protocol.holderTables(), create, timeout, where);
    }

    /**
     * Makes sure the objects of {@code probes} (name to a statement that fails when it is missing)
     * exist, running {@code ddl} when allowed.
     *
     * @param where the start of every message, naming the lock and the backend
     * @param explain what to do about a failed CREATE
     * @throws LockConfigurationException if they are missing and cannot or may not be created; the
     *     message prints the DDL to run
     * @throws SQLException if the database could not be asked
     */
    static void ensure(
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
                // Usually another client creating the same object at the same moment, despite IF NOT
                // EXISTS (PostgreSQL reports a duplicate key in its catalog, H2 a general error). The
                // probe below decides whether the schema is complete.
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

    /**
     * Makes sure that the tables of grants have the {@code holder} column (added after their first
     * release; tables created by an older version lack it): added with {@code ALTER TABLE} when
     * {@code create} allows, otherwise, or when that fails, the backend works without holder
     * descriptions, which one log line says, with the statement to run.
     *
     * @param tables the tables of grants that should have the column, each with the statement that
     *     adds it (or creates the table, for a table of holders that an older version did not have)
     * @return whether every one of them has it, so that statements may read and write it
     * @throws SQLException if the database could not be asked
     */
    static boolean holderColumns(
            Connection connection, Map<String, String> tables, boolean create, int queryTimeoutSeconds, String where)
            throws SQLException {
        List<String> missing = missingHolder(connection, tables.keySet(), queryTimeoutSeconds);
        if (missing.isEmpty()) {
            return true;
        }
        List<String> alters = new ArrayList<>();
        for (String table : missing) {
            alters.add(tables.get(table));
        }
        SQLException failure = null;
        if (create) {
            log.info("{}: adding the holder column to {}", where, missing);
            for (String alter : alters) {
                try (Statement st = connection.createStatement()) {
                    st.setQueryTimeout(queryTimeoutSeconds);
                    st.execute(alter);
                } catch (SQLException e) {
                    if (JdbcFailures.isConnection(e) || JdbcFailures.isTimeout(e)) {
                        throw e;
                    }
                    failure = failure == null ? e : failure; // another client adding it, or no right to
                }
            }
            missing = missingHolder(connection, tables.keySet(), queryTimeoutSeconds);
            if (missing.isEmpty()) {
                return true;
            }
        }
        log.warn(
                "{}: the lock tables {} lack the holder column (created by an older version{}); locks work, but"
                        + " operators see no holder descriptions. To add it, run as a user allowed to alter them: {}",
                where,
                missing,
                create
                        ? ", and adding it failed: " + (failure == null ? "?" : failure.getMessage())
                        : ", createSchema=false",
                String.join("; ", alters));
        return false;
    }

    /**
     * Makes sure that tables of an older version have the columns a protocol needs (fair hand-off's
     * {@code queued}, {@code lease_ms}): added with {@code ALTER TABLE} when {@code create} allows.
     *
     * @param upgrades a probe that fails while a column is missing, to the statement that adds it
     * @throws LockConfigurationException if one is missing and may not or could not be added; the
     *     message prints the statements to run
     * @throws SQLException if the database could not be asked
     */
    static void upgrade(
            Connection connection, Map<String, String> upgrades, boolean create, int queryTimeoutSeconds, String where)
            throws SQLException {
        List<String> alters = missingColumns(connection, upgrades, queryTimeoutSeconds);
        if (alters.isEmpty()) {
            return;
        }
        SQLException failure = null;
        if (create) {
            log.info("{}: adding the columns of fair hand-off: {}", where, alters);
            for (String alter : alters) {
                try (Statement st = connection.createStatement()) {
                    st.setQueryTimeout(queryTimeoutSeconds);
                    st.execute(alter);
                } catch (SQLException e) {
                    if (JdbcFailures.isConnection(e) || JdbcFailures.isTimeout(e)) {
                        throw e;
                    }
                    failure = failure == null ? e : failure; // another client adding it, or no right to
                }
            }
            if (missingColumns(connection, upgrades, queryTimeoutSeconds).isEmpty()) {
                return;
            }
        }
        throw new LockConfigurationException(
                where + ": the lock tables lack columns of fair hand-off (created by an older version"
                        + (create ? "; adding them failed" : ", and createSchema is false")
                        + "); run as a user allowed to alter them, or set fair=false:\n"
                        + String.join(";\n", alters) + ";",
                failure);
    }

    private static List<String> missingColumns(Connection connection, Map<String, String> upgrades, int timeout)
            throws SQLException {
        List<String> alters = new ArrayList<>();
        for (Map.Entry<String, String> upgrade : upgrades.entrySet()) {
            try (Statement st = connection.createStatement()) {
                st.setQueryTimeout(timeout);
                st.executeQuery(upgrade.getKey()).close();
            } catch (SQLException e) {
                if (!JdbcFailures.isMissingColumn(e) && !JdbcFailures.isMissingObject(e)) {
                    throw e;
                }
                alters.add(upgrade.getValue());
            }
        }
        alters.sort(null);
        return alters;
    }

    /** The statement that adds the holder column to a table of grants. */
    static String addHolder(Dialect dialect, String table) {
        return "ALTER TABLE " + table + " ADD COLUMN IF NOT EXISTS holder VARCHAR(120)"
                + (dialect == Dialect.MARIADB ? " CHARACTER SET utf8mb4" : "");
    }

    /** {@link #addHolder} for each table. */
    static Map<String, String> addHolder(Dialect dialect, List<String> tables) {
        Map<String, String> upgrades = new java.util.LinkedHashMap<>();
        tables.forEach(table -> upgrades.put(table, addHolder(dialect, table)));
        return upgrades;
    }

    private static List<String> missingHolder(Connection connection, java.util.Collection<String> tables, int timeout)
            throws SQLException {
        List<String> missing = new ArrayList<>();
        for (String table : tables) {
            try (Statement st = connection.createStatement()) {
                st.setQueryTimeout(timeout);
                st.executeQuery("SELECT holder FROM " + table + " WHERE 1 = 0").close();
            } catch (SQLException e) {
                if (!JdbcFailures.isMissingColumn(e) && !JdbcFailures.isMissingObject(e)) {
                    throw e;
                }
                missing.add(table);
            }
        }
        return missing;
    }

    /** The objects whose probe fails because they do not exist, sorted. */
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
    static String probe(String table) {
        return "SELECT 1 FROM " + table + " WHERE 1 = 0";
    }

    /** The DDL file split into statements, without comments. */
    static List<String> statementsOf(String ddl) {
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
