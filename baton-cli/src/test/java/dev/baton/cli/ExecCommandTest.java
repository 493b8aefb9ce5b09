package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.servers.H2Server;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import dev.baton.testsupport.TcpProxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code baton exec} and {@code baton status} against a real H2 server. */
class ExecCommandTest {
    private static H2Server server;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        server = H2Server.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String uri() {
        return uri(server.host() + ":" + server.port());
    }

    private static String uri(String hostPort) {
        return server.jdbcUrl().replace(server.host() + ":" + server.port(), hostPort) + ";USER=" + server.user()
                + ";PASSWORD=" + server.password();
    }

    private static String name() {
        return "exec-" + UUID.randomUUID();
    }

    @Test
    void runsTheCommandWithNameAndTokenAndReturnsItsExitCode() throws IOException {
        String name = name();
        Path seen = dir.resolve("seen");
        CliRun run = CliRun.of(
                "exec",
                "--uri",
                uri(),
                "--name",
                name,
                "--",
                "sh",
                "-c",
                "echo \"$BATON_LOCK_NAME $BATON_FENCING_TOKEN\" > " + seen + "; exit 7");
        assertThat(run.exitCode()).as(run.err()).isEqualTo(7);
        String[] parts = Files.readString(seen, StandardCharsets.UTF_8).trim().split(" ");
        assertThat(parts[0]).isEqualTo(name);
        assertThat(Long.parseLong(parts[1])).isPositive();
        try (LockClient client = Baton.connect(uri())) {
            assertThat(client.lock(name).tryAcquire())
                    .as("released after the command")
                    .isPresent();
        }
    }

    @Test
    void lockHeldElsewhereGives75AfterTheWait() {
        String name = name();
        try (LockClient client = Baton.connect(uri());
                Lease held = client.lock(name).acquire(KitTime.grant())) {
            Duration wait = Duration.ofMillis(300);
            KitTime.Stopwatch waited = KitTime.stopwatch();
            CliRun run =
                    CliRun.of("exec", "--uri", uri(), "--name", name, "--wait", wait.toMillis() + "ms", "--", "true");
            assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_ACQUIRED);
            assertThat(run.err()).contains(name).contains("not acquired within PT0.3S");
            // The wait, then the client's connection and close: an operation or two.
            assertThat(waited.millis())
                    .as("the wait and the client's set-up (%s)", waited)
                    .isBetween(
                            wait.toMillis() - 50,
                            waited.allows(wait.plus(KitTime.OPERATION_TIMEOUT).plus(KitTime.SLACK))
                                    .toMillis());
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void unreachableBackendGives69() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        CliRun run = CliRun.of("exec", "--uri", uri("127.0.0.1:" + closed), "--name", name(), "--", "true");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(run.err()).startsWith("baton exec: ").contains("jdbc-table");
    }

    @Test
    void badArgumentsGive64WithAOneLineMessage() {
        assertThat(CliRun.of("exec", "--name", "x", "--", "true").exitCode()).isEqualTo(ExitCodes.USAGE);
        CliRun badWait = CliRun.of("exec", "--uri", uri(), "--name", "x", "--wait", "soon", "--", "true");
        assertThat(badWait.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(badWait.err()).contains("'soon' is not a duration");
        CliRun badScheme = CliRun.of("exec", "--uri", "consul://127.0.0.1:8500", "--name", "x", "--", "true");
        assertThat(badScheme.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(badScheme.err()).contains("unknown scheme 'consul'");
        CliRun badName = CliRun.of("exec", "--uri", uri(), "--name", "bad\nname", "--", "true");
        assertThat(badName.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(badName.err()).contains("control character");
        CliRun zeroLease = CliRun.of("exec", "--uri", uri(), "--name", "x", "--lease", "0s", "--", "true");
        assertThat(zeroLease.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(zeroLease.err()).contains("leaseTime must be positive");
    }

    @Test
    void missingCommandGives127() {
        CliRun run = CliRun.of("exec", "--uri", uri(), "--name", name(), "--", "no-such-command-" + UUID.randomUUID());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(run.err()).contains("cannot run");
    }

    @Test
    void lostLeaseTerminatesTheCommandAndGives76() throws Exception {
        String name = name();
        Path pidFile = dir.resolve("pid");
        try (TcpProxy proxy = TcpProxy.start(new InetSocketAddress(server.host(), server.port()))) {
            String viaProxy = uri("127.0.0.1:" + proxy.address().getPort());
            Duration lease = Duration.ofSeconds(1);
            Duration grace = Duration.ofSeconds(1);
            CompletableFuture<CliRun> exec = CompletableFuture.supplyAsync(() -> CliRun.of(
                    "exec",
                    "--uri",
                    viaProxy,
                    "--name",
                    name,
                    "--lease",
                    lease.toMillis() + "ms",
                    "--grace",
                    grace.toMillis() + "ms",
                    "--",
                    "sh",
                    "-c",
                    "echo $$ > " + pidFile + "; exec sleep 120"));
            // The lock granted, then the shell started.
            Await.condition("the command started", KitTime.grant(), () -> {
                assertThat(exec).isNotDone();
                return hasLine(pidFile);
            });
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            assertThat(ProcessHandle.of(pid))
                    .hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());

            proxy.cut();
            // The loss at the lease's end, the command's grace, then the release's try through the cut
            // link, bounded by the default operation timeout.
            CliRun run = Await.result(
                    exec,
                    KitTime.bound(lease.plus(grace).plus(LockOptions.defaults().operationTimeout())));
            assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.LEASE_LOST);
            assertThat(run.err().lines().toList())
                    .as("one line for the failure, not the renewal and release warnings around it")
                    .singleElement()
                    .satisfies(line -> assertThat(line)
                            .startsWith("baton exec: ")
                            .contains(name)
                            .contains("lease lost")
                            .contains("terminating the command"));
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .as("the command was terminated")
                    .isFalse();
        }
    }

    @Test
    void statusShowsHolderModeTokenAndExpiry() {
        String held = name();
        String free = name();
        try (LockClient client = Baton.connect(uri());
                Lease lease = client.lock(held).acquire(KitTime.grant())) {
            CliRun run = CliRun.of("status", "--uri", uri(), held, free);
            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out().lines())
                    .anySatisfy(line -> assertThat(line)
                            .matches(java.util.regex.Pattern.quote(held) + " +lock +1 +0 +" + lease.fencingToken()
                                    + " +in [0-9.]+s +[0-9a-f]{32} +.* pid "
                                    + ProcessHandle.current().pid()
                                    + " thread .*"))
                    .contains(free + ": free");
        }
        assertThat(CliRun.of("status", "--uri", uri(), "").exitCode()).isEqualTo(ExitCodes.USAGE);
    }

    private static boolean hasLine(Path file) {
        try {
            return Files.exists(file) && !Files.readString(file).isBlank();
        } catch (IOException e) {
            return false; // being written
        }
    }
}
