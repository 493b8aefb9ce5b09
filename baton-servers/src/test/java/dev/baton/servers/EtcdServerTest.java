package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EtcdServerTest {

    @Test
    void startsAHealthyMemberAndRemovesEverythingOnClose() {
        Path dataDir;
        long pid;
        try (EtcdServer server = EtcdServer.start()) {
            assertThat(server.external()).isFalse();
            assertThat(server.size()).isEqualTo(1);
            assertThat(server.endpoints()).startsWith("127.0.0.1:");
            assertThat(server.uri()).isEqualTo("etcd://" + server.endpoints());
            assertThat(server.leader()).as("a single member leads itself").isZero();
            pid = server.pid(0);
            assertThat(ProcessHandle.of(pid)).isPresent();
            dataDir = Path.of(ProcessHandle.of(pid)
                            .orElseThrow()
                            .info()
                            .arguments()
                            .map(args -> java.util.Arrays.stream(args)
                                    .filter(a -> a.startsWith("--data-dir="))
                                    .findFirst()
                                    .orElseThrow())
                            .orElseThrow()
                            .substring("--data-dir=".length()))
                    .getParent();
            assertThat(dataDir).isDirectory();
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("the member is stopped")
                .isFalse();
        assertThat(Files.exists(dataDir)).as("its data directory is deleted").isFalse();
        assertThat(EtcdServer.version()).matches("\\d+\\.\\d+\\.\\d+.*");
    }

    @Test
    void anExternalServerIsReportedNotStarted() {
        try (EtcdServer external =
                EtcdServer.startCluster(3, Map.of(EtcdServer.ENV_ENDPOINTS, "http://h1:2379,h2:2379"))) {
            assertThat(external.external()).isTrue();
            assertThat(external.endpoints()).isEqualTo("h1:2379,h2:2379");
            assertThat(external.size()).isEqualTo(2);
            assertThat(external.pid(0)).isEqualTo(-1);
            assertThatThrownBy(() -> external.kill(0))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(EtcdServer.ENV_ENDPOINTS);
        }
    }
}
