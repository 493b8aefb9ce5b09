package dev.baton.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** H2's fair hand-off at the SPI, table and optimistic strategies, on an in-process database. */
class H2HandOffTest extends RowHandOffTest {
    private static final String DATABASE = "jdbc:h2:mem:handoff-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private static Connection keepAlive;

    @BeforeAll
    static void createDatabase() throws SQLException {
        keepAlive = DriverManager.getConnection(DATABASE, "sa", "baton");
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        keepAlive.createStatement().execute("SHUTDOWN");
        keepAlive.close();
    }

    @Override
    List<String> strategies() {
        return List.of("table", "optimistic");
    }

    @Override
    String url(String strategy, String table) {
        return DATABASE + ";USER=sa;PASSWORD=baton;strategy=" + strategy + ";table=" + table;
    }

    @Override
    Connection connect() throws SQLException {
        return DriverManager.getConnection(DATABASE, "sa", "baton");
    }

    @Override
    String now() {
        return "CURRENT_TIMESTAMP";
    }
}
