package dev.baton.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Fair hand-off on an in-process H2 database, which has no release notifications. */
class H2FairHandOffTest extends FairHandOffTest {
    private static InMemoryH2 database;

    @BeforeAll
    static void createDatabase() throws SQLException {
        database = InMemoryH2.open("fair");
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
    String url(String strategy, String table, String extra) {
        return database.url + ";USER=sa;PASSWORD=baton;strategy=" + strategy + ";table=" + table
                + (extra == null ? "" : ";" + extra);
    }

    @Override
    Connection connect() throws SQLException {
        return database.connect();
    }

    @Override
    boolean notifiesReleases() {
        return false;
    }
}
