package dev.baton.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** H2's fair hand-off at the SPI, table strategy, on an in-process database. */
class H2HandOffTest extends RowHandOffTest {
    private static InMemoryH2 database;

    @BeforeAll
    static void createDatabase() throws SQLException {
        database = InMemoryH2.open("handoff");
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        database.close();
    }

    @Override
    List<String> strategies() {
        return List.of("table");
    }

    @Override
    String url(String strategy, String table) {
        return database.url + ";USER=sa;PASSWORD=baton;strategy=" + strategy + ";table=" + table;
    }

    @Override
    Connection connect() throws SQLException {
        return database.connect();
    }

    @Override
    String now() {
        return "CURRENT_TIMESTAMP";
    }
}
