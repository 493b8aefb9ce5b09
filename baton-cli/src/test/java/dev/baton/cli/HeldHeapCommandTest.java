package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code baton bench --scenarios H}: wired to the heap-per-held-lease bench, tiny, on embedded Redis. */
@Timeout(120)
class HeldHeapCommandTest {

    @Test
    void scenarioHHoldsTheLeasesOnRedisBesideRedissonAndPrintsTheHeapPerLease() {
        CliRun run =
                CliRun.of("bench", "--scenarios", "H", "--backends", "redis", "--held-leases", "200", "--lease", "2s");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("| backend | subject | leases | lost | took | heap per held lease |")
                .containsPattern("\\| redis \\| baton \\| 200 \\| [0-9]+ \\| [0-9]+m?s \\| -?[0-9,]+ B \\|")
                .containsPattern("\\| redis \\| redisson RLock \\| 200 \\| [0-9]+ \\| [0-9]+m?s \\| -?[0-9,]+ B \\|")
                .contains("redis, baton, 200 leases:")
                .as("only scenario H was asked for: no comparison table")
                .doesNotContain("uncontended pairs/s");
        assertThat(run.err()).contains("scenario H on redis").contains("redis baton: taking 200 leases");
    }

    @Test
    void noHeldLeasesIsABadArgument() {
        CliRun run = CliRun.of("bench", "--scenarios", "H", "--backends", "redis", "--held-leases", "0");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("scenario H needs").contains("--held-leases of at least 1");
    }
}
