package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Fencing}'s checks of its arguments, which run before any statement: on an in-process H2
 * database (the database never sees a bad argument; {@link FencingTest} covers the three servers).
 */
class FencingArgumentsTest {
    private static final String DATABASE = "jdbc:h2:mem:fencing-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private static Connection keepAlive;

    @BeforeAll
    static void createDatabase() throws SQLException {
        keepAlive = DriverManager.getConnection(DATABASE, "sa", "");
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        try (Statement statement = keepAlive.createStatement()) {
            statement.execute("SHUTDOWN");
        }
        keepAlive.close();
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(DATABASE, "sa", "");
    }

    private static Fencing.Table freshTable() throws SQLException {
        String name = "f_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
        execute(
                keepAlive,
                "CREATE TABLE " + name + " (id BIGINT PRIMARY KEY, payload VARCHAR(40), amount BIGINT,"
                        + " fencing_token BIGINT)");
        return new Fencing.Table(name, "id", "fencing_token");
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement statement = c.createStatement()) {
            statement.execute(sql);
        }
    }

    private static String row(Connection c, Fencing.Table table, long id) throws SQLException {
        try (Statement statement = c.createStatement();
                ResultSet rs = statement.executeQuery(
                        "SELECT payload, amount, fencing_token FROM " + table.name() + " WHERE id = " + id)) {
            return rs.next() ? rs.getString(1) + "/" + rs.getObject(2) + "/" + rs.getObject(3) : null;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1st", "a b", "t;DROP TABLE x", "\"quoted\"", "a.b.c", "s.", "a-b", "tab\u00e9"})
    void badTableNamesAreRejected(String name) {
        assertThatThrownBy(() -> new Fencing.Table(name, "id", "fencing_token"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table name '" + name + "' is not a plain SQL identifier");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "s.id",
                "id OR 1=1",
                "id--",
                "`id`",
                "x234567890123456789012345678901234567890123456789012345678901234"
            })
    void badColumnNamesAreRejected(String column) throws Exception {
        assertThatThrownBy(() -> new Fencing.Table("t", column, "fencing_token"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key column '" + column + "'");
        assertThatThrownBy(() -> new Fencing.Table("t", "id", column))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token column '" + column + "'");
        Fencing.Table table = freshTable();
        try (Connection c = connect()) {
            assertThatThrownBy(() -> Fencing.guardedUpdate(c, table, 1L, 1, Map.of(column, 1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("value column '" + column + "'");
        }
    }

    @Test
    void plainAndQualifiedIdentifiersAreAccepted() {
        Fencing.Table table = new Fencing.Table("billing.Invoices_2", "_id", "x".repeat(63));
        assertThat(table.name()).isEqualTo("billing.Invoices_2");
        assertThatThrownBy(() -> new Fencing.Table(null, "id", "token"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table name is null");
        assertThatThrownBy(() -> new Fencing.Table("t", "ID", "id"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must differ");
    }

    @Test
    void badArgumentsAreRejectedBeforeAnyStatement() throws Exception {
        Fencing.Table table = freshTable();
        try (Connection c = connect()) {
            execute(c, "INSERT INTO " + table.name() + " (id, payload, amount, fencing_token) VALUES (1, 'a', 1, 1)");
            Map<String, Object> ok = Map.of("payload", "b");
            assertThatThrownBy(() -> Fencing.guardedUpdate(c, table, null, 1, ok))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("key is null");
            assertThatThrownBy(() -> Fencing.guardedUpsert(c, table, 1L, -1, ok))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("fencing token -1 is negative");
            assertThatThrownBy(() -> Fencing.guardedUpdate(c, table, 1L, 1, Map.of()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no values to write into " + table.name());
            assertThatThrownBy(() -> Fencing.guardedUpdate(c, table, 1L, 1, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no values");
            assertThatThrownBy(() -> Fencing.guardedUpdate(c, table, 1L, 1, Map.of("FENCING_TOKEN", 99)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must not set the key or token column, but they set 'FENCING_TOKEN'");
            assertThatThrownBy(() -> Fencing.guardedUpdate(c, table, 1L, 1, Map.of("id", 2)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("they set 'id'");
            assertThatThrownBy(() -> Fencing.guardedUpdate(c, table, 1L, 1, Map.of("payload", "x", "PAYLOAD", "y")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("twice");
            assertThatThrownBy(() -> Fencing.guardedUpdate(null, table, 1L, 1, ok))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("connection is null");
            assertThatThrownBy(() -> Fencing.guardedUpdate(c, null, 1L, 1, ok))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("table is null");
            assertThat(row(c, table, 1)).isEqualTo("a/1/1");
        }
    }
}
