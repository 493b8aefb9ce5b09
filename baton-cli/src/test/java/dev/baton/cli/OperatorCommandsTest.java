package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.servers.H2Server;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code baton locks}, {@code baton status} and {@code baton release --force} against a real H2 server. */
class OperatorCommandsTest {
    private static final Duration LEASE = Duration.ofSeconds(2);

    private static H2Server server;

    @BeforeAll
    static void start() {
        server = H2Server.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String uri() {
        return server.jdbcUrl() + ";USER=" + server.user() + ";PASSWORD=" + server.password();
    }

    private static LockClient client(String clientName) {
        return Baton.connect(
                uri(),
                LockOptions.builder().clientName(clientName).leaseTime(LEASE).build());
    }

    @Test
    void locksShowsEachHolderWithItsDescriptionTokenAndExpiryAndTheSemaphoresUse() {
        String prefix = "ops-" + UUID.randomUUID() + "/";
        try (LockClient billing = client("billing");
                LockClient reports = client("reports");
                Lease lock = billing.lock(prefix + "nightly").acquire(KitTime.grant());
                Lease permit = reports.semaphore(prefix + "exports", 3).acquire(KitTime.grant())) {
            CliRun run = CliRun.of("locks", "--uri", uri(), "--prefix", prefix);
            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out().lines().toList())
                    .first()
                    .asString()
                    .matches("NAME +KIND +HELD +WAITERS +TOKEN +EXPIRES +OWNER +HOLDER");
            assertThat(run.out())
                    .containsPattern(prefix + "exports +semaphore +1/3 .* " + permit.fencingToken() + " +in [0-9.]+s .*"
                            + " reports on .* pid " + ProcessHandle.current().pid())
                    .containsPattern(
                            prefix + "nightly +lock +1 .* " + lock.fencingToken() + " +in [0-9.]+s .*" + " billing on ")
                    .contains("1 lock and 1 semaphore held under '" + prefix + "'");

            CliRun json = CliRun.of("locks", "--uri", uri(), "--prefix", prefix, "--json");
            assertThat(json.exitCode()).as(json.err()).isZero();
            assertThat(json.out())
                    .startsWith("{\"backend\":")
                    .contains("{\"name\":\"" + prefix + "exports\",\"kind\":\"semaphore\",\"permits\":3,")
                    .contains("\"fencingToken\":" + lock.fencingToken() + ",")
                    .contains("\"description\":\"billing on ");
        }
        CliRun empty = CliRun.of("locks", "--uri", uri(), "--prefix", prefix);
        assertThat(empty.out()).contains("nothing held under '" + prefix + "'");
    }

    @Test
    void releaseRefusesWithoutForceAndWithItBreaksTheHolderWhoIsToldAtItsNextRenewal() throws Exception {
        String name = "ops-" + UUID.randomUUID();
        try (LockClient stuck = client("stuck");
                LockClient next = client("next")) {
            Lease held = stuck.lock(name).acquire(KitTime.grant());
            CompletableFuture<LockLostException> lost = new CompletableFuture<>();
            held.onLost(lost::complete);

            CliRun refused = CliRun.of("release", "--uri", uri(), name);
            assertThat(refused.exitCode()).isEqualTo(ExitCodes.USAGE);
            assertThat(refused.err()).contains("without --force").contains(name);
            assertThat(next.lock(name).tryAcquire()).isEmpty();

            CliRun broke = CliRun.of("release", "--force", "--uri", uri(), name);
            assertThat(broke.exitCode()).as(broke.err()).isZero();
            assertThat(broke.out())
                    .contains("broke the lock '" + name + "' held by stuck on ")
                    .contains("fencing token " + held.fencingToken())
                    .contains("above " + held.fencingToken());
            try (Lease taken = next.lock(name).tryAcquire().orElseThrow()) {
                assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
                // At the next renewal, and never past the validity the last one granted.
                assertThat(Await.result(lost, LEASE.plus(KitTime.SLACK))).hasMessageContaining(name);
                assertThat(held.isValid()).isFalse();
            }
            CliRun again = CliRun.of("release", "--force", "--uri", uri(), name);
            assertThat(again.out()).contains("nothing broken: '" + name + "' was not held");
        }
    }
}
