package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unreachable backend is one line on stderr naming the lock, the backend and what to do, and exit
 * code 69; the client libraries' reconnect warnings and stack traces only with {@code --verbose}.
 * Nothing listens on the port; each run is bounded by the operation timeout (5 s).
 */
class UnreachableBackendTest {
    private static int deadPort;

    @BeforeAll
    static void findADeadPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            deadPort = socket.getLocalPort();
        }
    }

    private static String zookeeper() {
        return "zookeeper://127.0.0.1:" + deadPort + "?connectionTimeout=1s&sessionTimeout=2s";
    }

    @Test
    void statusOnZooKeeperSaysItInOneLine() {
        CliRun run = CliRun.of("status", "--uri", zookeeper(), "unreachable-lock");
        assertOneLine(run, "baton status: ", "zookeeper", "check that a quorum of 127.0.0.1:" + deadPort);
    }

    @Test
    void theCommandsOwnProcessWritesOneLineToItsStandardError(@TempDir Path dir) throws Exception {
        // In a JVM of its own: what a user sees, including anything a logging binding prints at start.
        Path stderr = dir.resolve("stderr");
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        BatonCommand.class.getName(),
                        "status",
                        "--uri",
                        zookeeper(),
                        "unreachable-lock")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(stderr.toFile())
                .start();
        try {
            Await.condition("the command's JVM to exit", KitTime.COLD_START, () -> !process.isAlive());
            String err = Files.readString(stderr, StandardCharsets.UTF_8);
            assertOneLine(
                    new CliRun(process.exitValue(), "", err), "baton status: ", "zookeeper", "check that a quorum");
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void execOnZooKeeperSaysItInOneLine() {
        CliRun run = CliRun.of("exec", "--uri", zookeeper(), "--name", "unreachable-lock", "--", "true");
        assertOneLine(run, "baton exec: ", "zookeeper", "check that a quorum of 127.0.0.1:" + deadPort);
    }

    @Test
    void statusOnRedisSaysItInOneLine() {
        CliRun run = CliRun.of("status", "--uri", "redis://127.0.0.1:" + deadPort, "unreachable-lock");
        assertOneLine(run, "baton status: ", "redis", "check that Redis runs at that address");
    }

    @Test
    void execOnRedisSaysItInOneLine() {
        CliRun run =
                CliRun.of("exec", "--uri", "redis://127.0.0.1:" + deadPort, "--name", "unreachable-lock", "--", "true");
        assertOneLine(run, "baton exec: ", "redis", "check that Redis runs at that address");
    }

    private static String azure() {
        return "azblob://devstoreaccount1/locks?endpoint=http://127.0.0.1:" + deadPort
                + "/devstoreaccount1&accountKey=a2V5";
    }

    @Test
    void statusOnAzureBlobSaysItInOneLine() {
        CliRun run = CliRun.of("status", "--uri", azure(), "unreachable-lock");
        assertOneLine(
                run, "baton status: ", "azure-blob", "cannot reach the blob service at http://127.0.0.1:" + deadPort);
    }

    @Test
    void execOnAzureBlobSaysItInOneLine() {
        CliRun run = CliRun.of("exec", "--uri", azure(), "--name", "unreachable-lock", "--", "true");
        assertOneLine(run, "baton exec: ", "azure-blob", "check the endpoint, the network");
    }

    @Test
    void verboseShowsTheClientLibraryWarningsWithStackTraces() {
        CliRun run = CliRun.of("status", "--verbose", "--uri", zookeeper(), "unreachable-lock");
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(run.err().lines().count()).as(run.err()).isGreaterThan(1);
        assertThat(run.err())
                .contains("WARNING [")
                .contains("org.apache.zookeeper")
                .contains("java.net.ConnectException")
                .contains("\tat ")
                .contains("baton status: Baton lock 'unreachable-lock' on zookeeper");
    }

    private static void assertOneLine(CliRun run, String command, String backend, String fix) {
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines().toList()).as(run.err()).singleElement().satisfies(line -> assertThat(line)
                .startsWith(command)
                .contains("'unreachable-lock'")
                .contains(backend)
                .contains(fix));
    }
}
