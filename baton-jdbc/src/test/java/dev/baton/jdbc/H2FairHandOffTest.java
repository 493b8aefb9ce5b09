package dev.baton.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Fair hand-off on an in-process H2 database, which has no release notifications. */
class H2FairHandOffTest extends FairHandOffTest {
    private static final String DATABASE = "jdbc:h2:mem:fair-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
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
    String url(String strategy, String table, String extra) {
        return DATABASE + ";USER=sa;PASSWORD=baton;strategy=" + strategy + ";table=" + table
                + (extra == null ? "" : ";" + extra);
    }

    @Override
    Connection connect() throws SQLException {
        return DriverManager.getConnection(DATABASE, "sa", "baton");
    }

    @Override
    boolean notifiesReleases() {
        return false;
    }
}
