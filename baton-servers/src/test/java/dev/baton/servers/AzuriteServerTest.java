package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AzuriteServerTest {

    @Test
    void startsOnALoopbackPortAndLeavesNothingBehind() {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.remove(AzuriteServer.ENV_URI);
        AzuriteServer server = AzuriteServer.start(env);
        long pid;
        try {
            assertThat(server.external()).isFalse();
            assertThat(server.endpoint()).isEqualTo("http://127.0.0.1:" + server.port() + "/devstoreaccount1");
            assertThat(server.uri("locks"))
                    .startsWith("azblob://devstoreaccount1/locks?endpoint=" + server.endpoint() + "&accountKey=")
                    .doesNotContain("+")
                    .doesNotContain("==");
            assertThat(AzuriteServer.answersHttp(server.port())).isTrue();
            pid = server.pid();
            assertThat(ProcessHandle.of(pid)).isPresent();
        } finally {
            server.close();
        }
        assertThat(server.isRunning()).isFalse();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("the azurite process is gone")
                .isFalse();
        assertThat(AzuriteServer.answersHttp(server.port())).isFalse();
    }

    @Test
    void anExternalUriStartsNothing() {
        AzuriteServer server = AzuriteServer.start(Map.of(
                AzuriteServer.ENV_URI,
                "azblob://acct/locks?endpoint=http://azurite.example:10000/acct&accountKey=s3cret"));
        assertThat(server.external()).isTrue();
        assertThat(server.host()).isEqualTo("azurite.example");
        assertThat(server.port()).isEqualTo(10000);
        assertThat(server.pid()).isEqualTo(-1);
        assertThat(server.uri("ignored")).endsWith("accountKey=s3cret");
        assertThat(server.toString()).doesNotContain("s3cret");
        server.close();

        AzuriteServer cloud = AzuriteServer.start(Map.of(AzuriteServer.ENV_URI, "azblob://prodacct/locks?sas=sv%3D1"));
        assertThat(cloud.host()).isEqualTo("prodacct.blob.core.windows.net");
        assertThat(cloud.port()).isEqualTo(443);
    }

    @Test
    void aMissingAzuriteSaysHowToInstallIt(@TempDir Path empty) {
        Map<String, String> env = Map.of("PATH", empty.toString(), "XDG_CACHE_HOME", empty.toString());
        assertThatThrownBy(() -> AzuriteServer.program(env))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("./test")
                .hasMessageContaining("npm install --prefix " + empty.resolve("baton/azurite-3.35.0"))
                .hasMessageContaining("azurite@3.35.0")
                .hasMessageContaining("apt-get install -y nodejs npm");
    }

    @Test
    void aNode20InTheCacheRunsAzurite(@TempDir Path cache) throws Exception {
        Path node = cache.resolve("baton/node-20/node_modules/.bin/node");
        Path azurite = cache.resolve("baton/azurite-3.35.0/node_modules/.bin/azurite-blob");
        for (Path program : List.of(node, azurite)) {
            Files.createDirectories(program.getParent());
            Files.writeString(program, "#!/bin/sh\n");
            program.toFile().setExecutable(true);
        }
        Map<String, String> env = Map.of("PATH", "", "XDG_CACHE_HOME", cache.toString());
        assertThat(AzuriteServer.program(env)).containsExactly(node.toString(), azurite.toString());
        Files.delete(node);
        assertThat(AzuriteServer.program(env)).as("else the node of the PATH").containsExactly(azurite.toString());
    }

    @Test
    void aBadProgramPathIsNamed(@TempDir Path dir) throws Exception {
        Path notExecutable = Files.writeString(dir.resolve("azurite-blob"), "#!/bin/sh\n");
        assertThatThrownBy(() -> AzuriteServer.program(Map.of(AzuriteServer.ENV_BIN, notExecutable.toString())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(AzuriteServer.ENV_BIN)
                .hasMessageContaining("not an executable");
    }
}
