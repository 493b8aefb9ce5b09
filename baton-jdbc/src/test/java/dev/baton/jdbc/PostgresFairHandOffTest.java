package dev.baton.jdbc;

import dev.baton.servers.DatabaseServer;
import dev.baton.servers.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Fair hand-off on a real PostgreSQL server. */
class PostgresFairHandOffTest extends FairHandOffTest {
    private static DatabaseServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresServer.sharedDatabase();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    List<String> strategies() {
        return List.of("table");
    }

    @Override
    String url(String strategy, String table, String extra) {
        return JdbcFixtures.uri(server, strategy) + "&table=" + table + (extra == null ? "" : "&" + extra);
    }

    @Override
    Connection connect() throws SQLException {
        return DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
    }

    @Override
    boolean notifiesReleases() {
        return true;
    }
}
