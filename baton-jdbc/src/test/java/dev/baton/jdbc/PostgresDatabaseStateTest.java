package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.servers.DatabaseServer;
import dev.baton.servers.PostgresServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The report a failed kit test gets from PostgreSQL ({@link DatabaseState}): a session that waits
 * for another's lock is shown with the blocker's pid and the lock it has not been granted.
 */
class PostgresDatabaseStateTest {
    private static PostgresServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
    }

    private static int pid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                var rows = statement.executeQuery("select pg_backend_pid()")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    @Test
    void aWaitingSessionIsShownWithItsBlockerAndTheLockItWaitsFor() throws Exception {
        try (Connection holder = connect();
                Connection waiter = connect()) {
            try (Statement statement = holder.createStatement()) {
                statement.execute("create table state_probe (id int)");
            }
            holder.setAutoCommit(false);
            try (Statement statement = holder.createStatement()) {
                statement.execute("lock table state_probe in access exclusive mode");
            }
            int holderPid = pid(holder);
            int waiterPid = pid(waiter);
            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
                try (Statement statement = waiter.createStatement()) {
                    statement.setQueryTimeout(60);
                    statement.executeQuery("select count(*) from state_probe").close();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            String blocked = "blocked_by={" + holderPid + "}";
            String[] state = {""};
            // The waiter's query reaches the server asynchronously: read the state until it shows the wait.
            Await.condition(
                    "the waiting session shown with its blocker",
                    KitTime.grant(),
                    () -> (state[0] = DatabaseState.of(server)).contains(blocked),
                    () -> state[0]);

            assertThat(state[0])
                    .contains("sessions (pg_stat_activity):")
                    .contains("pid=" + waiterPid + " ")
                    .contains(blocked)
                    .contains("wait_event_type=Lock")
                    .containsPattern("pid=" + waiterPid + " locktype=relation mode=AccessShareLock granted=false "
                            + "relation=state_probe")
                    .containsPattern("pid=" + holderPid + " locktype=relation mode=AccessExclusiveLock granted=true "
                            + "relation=state_probe");
            holder.rollback();
            Await.result(waiting, KitTime.grant());
        }
    }

    @Test
    void aServerThatCannotBeReachedIsReportedInTheText() {
        DatabaseServer nothingListens = new DatabaseServer() {
            @Override
            public String jdbcUrl() {
                return "jdbc:postgresql://127.0.0.1:1/baton";
            }

            @Override
            public String user() {
                return "postgres";
            }

            @Override
            public String password() {
                return "baton";
            }

            @Override
            public String host() {
                return "127.0.0.1";
            }

            @Override
            public int port() {
                return 1;
            }

            @Override
            public boolean external() {
                return true;
            }

            @Override
            public void close() {}
        };

        assertThat(DatabaseState.of(nothingListens)).startsWith("(could not read the server's state: ");
    }
}
