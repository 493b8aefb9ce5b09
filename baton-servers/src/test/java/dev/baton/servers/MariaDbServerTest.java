package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Starts a private mariadbd and checks credentials, isolation and clean shutdown. */
class MariaDbServerTest {

    @Test
    void startsAPrivateServerWithAPasswordUserAndStopsItByPid() throws Exception {
        MariaDbServer server = MariaDbServer.start(Map.of());
        Path base = server.baseDir();
        long pid = server.pid();
        try {
            assertThat(server.external()).isFalse();
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.jdbcUrl()).isEqualTo("jdbc:mariadb://127.0.0.1:" + server.port() + "/baton");
            try (Connection c = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT CURRENT_USER(), @@datadir")) {
                rs.next();
                assertThat(rs.getString(1)).startsWith("baton@");
                assertThat(Path.of(rs.getString(2)).normalize()).isEqualTo(base.resolve("data"));
            }
            assertThatThrownBy(() -> DriverManager.getConnection(server.jdbcUrl(), server.user(), "wrong"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("Access denied");
            try (MariaDbServer second = MariaDbServer.start(Map.of())) {
                assertThat(second.port()).isNotEqualTo(server.port());
                assertThat(second.baseDir()).isNotEqualTo(base);
            }
        } finally {
            server.close();
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .isFalse();
        assertThat(Files.exists(base)).isFalse();
        server.close(); // idempotent
    }

    @Test
    void anExternalServerIsReportedAndLeftAlone() {
        MariaDbServer external = MariaDbServer.start(
                Map.of(MariaDbServer.ENV_URL, "jdbc:mariadb://db.example:3307/app", MariaDbServer.ENV_USER, "app"));
        assertThat(external.external()).isTrue();
        assertThat(external.host()).isEqualTo("db.example");
        assertThat(external.port()).isEqualTo(3307);
        assertThat(external.user()).isEqualTo("app");
        assertThat(external.pid()).isEqualTo(-1);
        external.close();
    }
}
