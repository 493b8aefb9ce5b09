package dev.baton.servers;

import static dev.baton.servers.H2ServerTest.execute;
import static dev.baton.servers.H2ServerTest.queryInt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PrimitiveIterator;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PostgresServerTest {

    private static PostgresServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void servesSqlOnLoopback() throws Exception {
        assertThat(server.external()).isFalse();
        assertThat(server.host()).isEqualTo("127.0.0.1");
        assertThat(server.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + server.port() + "/baton");
        assertThat(server.user()).isEqualTo("postgres");
        try (Connection connection = connect(server)) {
            assertThat(queryInt(connection, "SELECT 1")).isEqualTo(1);
            assertThat(queryString(connection, "SELECT current_database()")).isEqualTo("baton");
        }
    }

    @Test
    void connectionsShareTheDatabase() throws Exception {
        try (Connection first = connect(server);
                Connection second = connect(server)) {
            execute(first, "CREATE TABLE shared (id INT PRIMARY KEY)");
            execute(first, "INSERT INTO shared VALUES (42)");
            assertThat(queryInt(second, "SELECT id FROM shared")).isEqualTo(42);
        }
    }

    @Test
    void pidIsThePostmaster() throws Exception {
        ProcessHandle postmaster = ProcessHandle.of(server.pid()).orElseThrow();
        assertThat(postmaster.isAlive()).isTrue();
        try (Connection connection = connect(server)) {
            long backend = queryInt(connection, "SELECT pg_backend_pid()");
            ProcessHandle parent =
                    ProcessHandle.of(backend).orElseThrow().parent().orElseThrow();
            assertThat(parent.pid()).isEqualTo(server.pid());
        }
    }

    @Test
    void twoServersRunAtOnceAndCloseRemovesEverything() throws Exception {
        try (Connection mine = connect(server)) {
            execute(mine, "CREATE TABLE IF NOT EXISTS made_before_the_other (id INT)");
        }
        PostgresServer other = PostgresServer.start();
        Path dataDir = other.dataDir();
        Path baseDir = other.baseDir();
        long pid = other.pid();
        try (Connection mine = connect(server);
                Connection theirs = connect(other)) {
            assertThat(other.port()).isNotEqualTo(server.port());
            assertThat(other.pid()).isNotEqualTo(server.pid());
            execute(theirs, "CREATE TABLE only_in_other (id INT)");
            assertThat(queryInt(mine, "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'only_in_other'"))
                    .isZero();
            // each server starts from its own copy of the cluster initdb made once, never another's data
            assertThat(queryInt(theirs, "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'made_before_the_other'"))
                    .isZero();
            assertThat(other.dataDir()).isNotEqualTo(server.dataDir());
            assertThat(dataDir).isDirectory();
        }
        try (Connection open = connect(other)) {
            other.close();
            other.close(); // idempotent
            assertThatThrownBy(() -> queryInt(open, "SELECT 1")).isInstanceOf(SQLException.class);
        }

        assertThatThrownBy(() -> connect(other)).isInstanceOf(SQLException.class);
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
        assertThat(dataDir).doesNotExist();
        assertThat(baseDir).doesNotExist();
        try (Connection connection = connect(server)) {
            assertThat(queryInt(connection, "SELECT 1")).isEqualTo(1);
        }
    }

    @Test
    void closeStopsAServerThatWasSigstopped() throws Exception {
        PostgresServer other = PostgresServer.start();
        long pid = other.pid();
        assertThat(Posix.signal(pid, "STOP")).isTrue();
        long started = System.nanoTime();
        other.close();
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(9);
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
        assertThat(other.baseDir()).doesNotExist();
    }

    @Test
    void restartKeepsPortAndDataAndBreaksOpenConnections() throws Exception {
        try (PostgresServer other = PostgresServer.start()) {
            int port = other.port();
            long pid = other.pid();
            try (Connection before = connect(other)) {
                execute(before, "CREATE TABLE survivors (id INT PRIMARY KEY)");
                execute(before, "INSERT INTO survivors VALUES (7)");

                other.restart();

                assertThatThrownBy(() -> queryInt(before, "SELECT 1"))
                        .as("a connection opened before the restart")
                        .isInstanceOf(SQLException.class);
            }
            assertThat(other.port()).isEqualTo(port);
            assertThat(other.pid()).isNotEqualTo(pid);
            assertThat(other.isRunning()).isTrue();
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
            try (Connection after = connect(other)) {
                assertThat(queryInt(after, "SELECT id FROM survivors")).isEqualTo(7);
            }
        }
    }

    @Test
    void killCrashesEveryProcessAndRestartRecoversCommittedData() throws Exception {
        try (PostgresServer other = PostgresServer.start()) {
            long pid = other.pid();
            List<ProcessHandle> processes;
            try (Connection before = connect(other)) {
                // the server runs with synchronous_commit=off; a session that turns it on commits
                // durably enough to survive SIGKILL
                execute(before, "SET synchronous_commit = on");
                execute(before, "CREATE TABLE crash_survivors (id INT PRIMARY KEY)");
                execute(before, "INSERT INTO crash_survivors VALUES (11)");
                processes = ProcessHandle.of(pid).orElseThrow().descendants().toList();
                assertThat(processes).as("backends and auxiliary processes").isNotEmpty();

                other.kill();

                assertThat(other.isRunning()).isFalse();
                assertThat(processes).noneMatch(ProcessHandle::isAlive);
                assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
                assertThatThrownBy(() -> queryInt(before, "SELECT 1")).isInstanceOf(SQLException.class);
            }
            assertThatThrownBy(() -> connect(other)).isInstanceOf(SQLException.class);
            other.kill(); // a killed server stays killed

            other.restart();

            assertThat(other.isRunning()).isTrue();
            try (Connection after = connect(other)) {
                assertThat(queryInt(after, "SELECT id FROM crash_survivors")).isEqualTo(11);
            }
        }
    }

    @Test
    void restartAfterCloseFailsClearly() {
        PostgresServer other = PostgresServer.start();
        other.close();
        assertThatThrownBy(other::restart)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("port " + other.port())
                .hasMessageContaining("was closed");
        assertThat(other.isRunning()).isFalse();
        assertThat(other.baseDir()).doesNotExist();
    }

    @Test
    void shutdownHookStopsAServerThatWasNotClosed(@TempDir Path tmp) throws Exception {
        Path report = tmp.resolve("report");
        Path output = tmp.resolve("output");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(LeakyMain.class.getName());
        command.add(report.toString());
        Process child = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        assertThat(child.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(() -> readQuietly(output)).isZero();

        List<String> lines = Files.readAllLines(report);
        long pid = Long.parseLong(lines.get(0));
        Path baseDir = Path.of(lines.get(1));
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive))
                .as(() -> readQuietly(output))
                .isNotEqualTo(Optional.of(true));
        assertThat(baseDir).doesNotExist();
    }

    @Test
    void retriesOnAnotherPortWhenThePortIsTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            PrimitiveIterator.OfInt ports =
                    IntStream.of(taken.getLocalPort(), FreePort.find()).iterator();
            try (PostgresServer other = PostgresServer.start(Map.of(), ports::nextInt);
                    Connection connection = connect(other)) {
                assertThat(other.port()).isNotEqualTo(taken.getLocalPort());
                assertThat(queryInt(connection, "SELECT 1")).isEqualTo(1);
                assertThat(Files.readString(other.baseDir().resolve("postgres.log")))
                        .contains("Address already in use");
            }
        }
    }

    @Test
    void environmentVariablePointsAtAnExternalServer() {
        PostgresServer external = PostgresServer.start(Map.of(
                PostgresServer.ENV_URL,
                "jdbc:postgresql://db.example.com:6543/locks",
                PostgresServer.ENV_PASSWORD,
                "secret"));
        assertThat(external.external()).isTrue();
        assertThat(external.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example.com:6543/locks");
        assertThat(external.host()).isEqualTo("db.example.com");
        assertThat(external.port()).isEqualTo(6543);
        assertThat(external.user()).isEqualTo("postgres");
        assertThat(external.password()).isEqualTo("secret");
        assertThat(external.pid()).isEqualTo(-1);
        assertThat(external.isRunning()).isFalse();
        assertThatThrownBy(external::restart)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot restart the external PostgreSQL named by BATON_POSTGRES_URL");
        assertThatThrownBy(external::kill)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot kill the external PostgreSQL");
        external.close();

        PostgresServer defaults =
                PostgresServer.start(Map.of(PostgresServer.ENV_URL, "jdbc:postgresql://db.example.com/locks"));
        assertThat(defaults.port()).isEqualTo(5432);
        assertThat(defaults.password()).isEqualTo("postgres");
    }

    /** Started in a child JVM: starts a server, reports its pid and directory, exits without close(). */
    static final class LeakyMain {
        public static void main(String[] args) throws Exception {
            PostgresServer leaked = PostgresServer.start();
            Files.write(
                    Path.of(args[0]),
                    List.of(Long.toString(leaked.pid()), leaked.baseDir().toString()));
        }
    }

    private static Connection connect(DatabaseServer db) throws SQLException {
        return DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
    }

    private static String queryString(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (Exception e) {
            return "(could not read " + file + ": " + e + ")";
        }
    }
}
