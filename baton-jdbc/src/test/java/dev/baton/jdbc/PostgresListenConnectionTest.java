package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.jdbc.listen.PendingCheckSocketFactory;
import dev.baton.servers.DatabaseServer;
import dev.baton.servers.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The LISTEN connection's sockets ({@link PendingCheckSocketFactory}) answer
 * the driver's "another message pending?" check at once when nothing is buffered: nothing of a
 * burst of notifications may be lost or held back by that, and the connection must work as any
 * other for queries.
 */
class PostgresListenConnectionTest {
    private static DatabaseServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresServer.sharedDatabase();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private static Properties credentials() {
        Properties properties = new Properties();
        properties.setProperty("user", server.user());
        properties.setProperty("password", server.password());
        return properties;
    }

    @Test
    void everyNotificationOfABurstAndALaterOneArrive() throws SQLException {
        try (Connection listen = PendingCheckSocketFactory.connect(
                        server.jdbcUrl(), credentials(), DriverManager::getConnection);
                Connection sender = DriverManager.getConnection(server.jdbcUrl(), credentials())) {
            try (Statement st = listen.createStatement()) {
                st.execute("LISTEN burst");
            }
            sender.setAutoCommit(false);
            try (Statement st = sender.createStatement()) {
                for (int i = 0; i < 5; i++) {
                    st.execute("NOTIFY burst, '" + i + "'");
                }
            }
            sender.commit();
            List<String> received = receive(listen, 5);
            assertThat(received).containsExactly("0", "1", "2", "3", "4");

            sender.setAutoCommit(true);
            try (Statement st = sender.createStatement()) {
                st.execute("NOTIFY burst, 'later'");
            }
            assertThat(receive(listen, 1)).containsExactly("later");
        }
    }

    @Test
    void queriesRunAsOnAnyConnection() throws SQLException {
        try (Connection listen = PendingCheckSocketFactory.connect(
                        server.jdbcUrl(), credentials(), DriverManager::getConnection);
                Statement st = listen.createStatement()) {
            st.setQueryTimeout(5);
            try (ResultSet rs = st.executeQuery("SELECT pg_sleep(0.05), 42")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(2)).isEqualTo(42);
            }
        }
    }

    /** Blocks in getNotifications until {@code count} arrived; the driver's own timeout bounds each call. */
    private static List<String> receive(Connection listen, int count) throws SQLException {
        PGConnection pg = listen.unwrap(PGConnection.class);
        List<String> received = new ArrayList<>();
        for (int calls = 0; received.size() < count && calls < 40; calls++) {
            PGNotification[] batch = pg.getNotifications(250);
            if (batch != null) {
                for (PGNotification notification : batch) {
                    received.add(notification.getParameter());
                }
            }
        }
        return received;
    }
}
