package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RedisServerTest {

    /** Sends one inline command and returns the first reply line. */
    private static String command(int port, String line) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder reply = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0 && c != '\r') {
                reply.append((char) c);
            }
            return reply.toString();
        }
    }

    @Test
    void startsWithoutPersistenceRestartsEmptyAndStops() throws Exception {
        RedisServer server = RedisServer.startEmbedded();
        try {
            assertThat(server.external()).isFalse();
            assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
            assertThat(server.pid()).isPositive();
            assertThat(command(server.port(), "SET k v")).isEqualTo("+OK");
            assertThat(command(server.port(), "CONFIG GET save")).isEqualTo("*2");
            long firstPid = server.pid();

            server.restart();
            assertThat(server.pid()).isNotEqualTo(firstPid);
            assertThat(command(server.port(), "EXISTS k")).as("no persistence").isEqualTo(":0");

            server.kill();
            assertThat(server.isRunning()).isFalse();
            assertThat(Resp.answers(server.port())).isFalse();
        } finally {
            server.close();
        }
        assertThat(server.isRunning()).isFalse();
    }

    @Test
    void aPausedServerAnswersNothingUntilResumed() throws Exception {
        try (RedisServer server = RedisServer.startEmbedded()) {
            server.pause();
            assertThat(Resp.answers(server.port())).isFalse();
            assertThat(server.isRunning()).isTrue();
            server.resume();
            assertThat(command(server.port(), "PING")).isEqualTo("+PONG");
            server.kill();
            assertThatThrownBy(server::pause)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not running");
        }
    }

    @Test
    void extraArgumentsReachTheServer() throws Exception {
        try (RedisServer server = RedisServer.startEmbedded("--requirepass", "s3cret")) {
            assertThat(command(server.port(), "GET k")).startsWith("-NOAUTH");
        }
    }

    @Test
    void independentMastersDoNotShareData() throws Exception {
        List<RedisServer> masters = RedisServer.startMasters(3);
        try {
            assertThat(masters).extracting(RedisServer::port).doesNotHaveDuplicates();
            command(masters.get(0).port(), "SET only-here 1");
            assertThat(command(masters.get(1).port(), "EXISTS only-here")).isEqualTo(":0");
        } finally {
            masters.forEach(RedisServer::close);
        }
    }

    @Test
    void sentinelMonitorsTheMaster() throws Exception {
        try (RedisSentinelServers servers = RedisSentinelServers.start()) {
            assertThat(servers.uri()).startsWith("redis-sentinel://127.0.0.1:").endsWith("#baton-master");
            assertThat(command(
                            servers.sentinel().port(),
                            "SENTINEL get-master-addr-by-name " + RedisSentinelServers.MASTER_NAME))
                    .isEqualTo("*2");
        }
    }

    @Test
    void externalUriStartsNothing() {
        RedisServer server = RedisServer.start(Map.of(RedisServer.ENV_URI, "redis://:pw@db.example:6380/2"));
        assertThat(server.external()).isTrue();
        assertThat(server.host()).isEqualTo("db.example");
        assertThat(server.port()).isEqualTo(6380);
        assertThat(server.pid()).isEqualTo(-1);
        assertThat(server.toString()).doesNotContain("pw");
        server.close();
        assertThatThrownBy(server::restart).isInstanceOf(IllegalStateException.class);
    }
}
