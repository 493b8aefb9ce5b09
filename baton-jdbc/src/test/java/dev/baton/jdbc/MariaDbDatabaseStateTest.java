package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.servers.MariaDbServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The report a failed kit test gets from MariaDB ({@link DatabaseState}): the process list, with a
 * session's running statement. (Its connect and socket timeouts are in milliseconds there, seconds on
 * PostgreSQL.)
 */
class MariaDbDatabaseStateTest {
    private static MariaDbServer server;

    @BeforeAll
    static void startServer() {
        server = MariaDbServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    void aRunningStatementIsShownWithItsSession() throws Exception {
        try (Connection busy = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                Statement sleeping = busy.createStatement()) {
            long id;
            try (ResultSet rows = sleeping.executeQuery("select connection_id()")) {
                rows.next();
                id = rows.getLong(1);
            }
            CompletableFuture<Void> running = CompletableFuture.runAsync(() -> {
                try {
                    sleeping.executeQuery("select sleep(30)").close();
                } catch (SQLException e) {
                    // cancelled below
                }
            });
            String[] state = {""};
            Await.condition(
                    "the sleeping session in the process list",
                    KitTime.grant(),
                    () -> (state[0] = DatabaseState.of(server)).contains("info=select sleep(30)"),
                    () -> state[0]);

            assertThat(state[0]).startsWith("sessions (processlist):").contains("id=" + id + " ");
            sleeping.cancel();
            Await.result(running, KitTime.grant());
        }
    }
}
