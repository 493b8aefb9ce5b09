package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.PrimitiveIterator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class H2ServerTest {

    @Test
    void servesSqlOverTcpOnLoopback() throws Exception {
        try (H2Server server = H2Server.start()) {
            assertThat(server.external()).isFalse();
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.port()).isPositive();
            assertThat(server.user()).isEqualTo("sa");
            assertThat(server.password()).isNotEmpty();
            assertThat(server.jdbcUrl()).isEqualTo("jdbc:h2:tcp://127.0.0.1:" + server.port() + "/mem:baton");

            try (Connection connection = connect(server)) {
                assertThat(queryInt(connection, "SELECT 1")).isEqualTo(1);
            }
            // The same database through a TCP URL assembled from host() and port(), as another JVM would.
            String tcpUrl = "jdbc:h2:tcp://" + server.host() + ":" + server.port() + "/mem:baton";
            try (Connection connection = DriverManager.getConnection(tcpUrl, server.user(), server.password())) {
                assertThat(queryInt(connection, "SELECT 1")).isEqualTo(1);
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(server.host(), server.port()), 5_000);
                assertThat(socket.isConnected()).isTrue();
            }
        }
    }

    @Test
    void connectionsShareTheDatabase() throws Exception {
        try (H2Server server = H2Server.start();
                Connection first = connect(server);
                Connection second = connect(server)) {
            execute(first, "CREATE TABLE shared (id INT PRIMARY KEY)");
            execute(first, "INSERT INTO shared VALUES (42)");
            assertThat(queryInt(second, "SELECT id FROM shared")).isEqualTo(42);
        }
    }

    @Test
    void closeStopsTheServerAndDropsTheDatabase() throws Exception {
        H2Server server = H2Server.start();
        Connection open = connect(server);
        execute(open, "CREATE TABLE gone (id INT)");

        server.close();
        server.close(); // idempotent

        assertThatThrownBy(() -> connect(server)).isInstanceOf(SQLException.class);
        assertThatThrownBy(() -> queryInt(open, "SELECT COUNT(*) FROM gone")).isInstanceOf(SQLException.class);
        open.close();
        assertThatThrownBy(() -> {
                    try (Socket socket = new Socket()) {
                        socket.connect(new InetSocketAddress(server.host(), server.port()), 5_000);
                    }
                })
                .isInstanceOf(IOException.class);

        // The name is free again and the new database is empty.
        try (H2Server next = H2Server.start();
                Connection connection = connect(next)) {
            assertThat(next.jdbcUrl()).endsWith("/mem:baton");
            assertThat(queryInt(connection, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'GONE'"))
                    .isZero();
        }
    }

    @Test
    void serversRunningAtTheSameTimeAreIndependent() throws Exception {
        try (H2Server a = H2Server.start();
                H2Server b = H2Server.start();
                Connection ca = connect(a);
                Connection cb = connect(b)) {
            assertThat(a.port()).isNotEqualTo(b.port());
            assertThat(a.jdbcUrl()).isNotEqualTo(b.jdbcUrl());
            execute(ca, "CREATE TABLE only_in_a (id INT)");
            assertThat(queryInt(cb, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'ONLY_IN_A'"))
                    .isZero();
        }
    }

    @Test
    void retriesOnAnotherPortWhenThePortIsTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            PrimitiveIterator.OfInt ports =
                    IntStream.of(taken.getLocalPort(), FreePort.find()).iterator();
            try (H2Server server = H2Server.start(Map.of(), ports::nextInt);
                    Connection connection = connect(server)) {
                assertThat(server.port()).isNotEqualTo(taken.getLocalPort());
                assertThat(queryInt(connection, "SELECT 1")).isEqualTo(1);
            }
        }
    }

    @Test
    void environmentVariablePointsAtAnExternalServer() {
        H2Server server = H2Server.start(
                Map.of(H2Server.ENV_URL, "jdbc:h2:tcp://db.example.com:9123/~/baton", H2Server.ENV_USER, "alice"));
        assertThat(server.external()).isTrue();
        assertThat(server.jdbcUrl()).isEqualTo("jdbc:h2:tcp://db.example.com:9123/~/baton");
        assertThat(server.host()).isEqualTo("db.example.com");
        assertThat(server.port()).isEqualTo(9123);
        assertThat(server.user()).isEqualTo("alice");
        assertThat(server.password()).isEmpty();
        server.close();

        H2Server defaults = H2Server.start(Map.of(H2Server.ENV_URL, "jdbc:h2:tcp://localhost/mem:x"));
        assertThat(defaults.user()).isEqualTo("sa");
        assertThat(defaults.port()).isEqualTo(9092);
    }

    private static Connection connect(DatabaseServer server) throws SQLException {
        return DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
    }

    static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    static int queryInt(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getInt(1);
        }
    }
}
