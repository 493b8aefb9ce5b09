package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code baton bench --scenarios M}: wired to the lease-scale bench, tiny, on embedded Redis. */
@Timeout(120)
class LeaseScaleCommandTest {

    @Test
    void scenarioMHoldsTheLeasesOnRedisAndPrintsItsTableOnly() {
        CliRun run = CliRun.of("bench", "--scenarios", "M", "--backends", "redis", "--leases", "50", "--lease", "2s");
        assertThat(run.exitCode()).as(run.err()).isZero();
        // The command's wiring and its table, not whether the leases survive: that is the kit's
        // RenewalAtScale property, whose bounds add the stalls the machine measured. Nothing here
        // stretches the 2 s lease, which a starved machine can let lapse, so the lost column is any
        // count.
        assertThat(run.out())
                .contains("Scenario M: one client holds N leases (lease 2s) for 3 lease times behind 1ms")
                .contains(
                        "| backend | subject | leases | latency | hold time | lost | renewal round trips per 100 leases"
                                + " per interval | client CPU per lease-interval | heap per lease |")
                .containsPattern(
                        "\\| redis \\| baton \\| 50 \\| 1ms \\| 6s \\| [0-9]+ \\| [0-9.]+ \\| [0-9.]+ µs \\| [0-9,]+ B \\|")
                .containsPattern(
                        "\\| redis \\| redisson RLock \\| 50 \\| 1ms \\| 6s \\| [0-9]+ \\| [0-9.]+ \\| [0-9.]+ µs \\| [0-9,]+ B \\|")
                .as("only scenario M was asked for: no comparison table")
                .doesNotContain("uncontended pairs/s");
        assertThat(run.err()).contains("redis baton: holding 50 leases for 3 x 2s");
    }

    @Test
    void namesRunsDistinctNamesThroughOneClientAndReportsItsHeap() {
        CliRun run = CliRun.of("bench", "--scenarios", "M", "--backends", "redis", "--leases", "0", "--names", "3000");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("| backend | distinct names | took | per second | heap before | heap after |")
                .containsPattern(
                        "\\| redis \\| 3,000 \\| [0-9]+m?s? \\| [0-9,]+ \\| [0-9,.]+ MB \\| [0-9,.]+ MB \\| -?[0-9.]+ B \\|")
                .as("--leases 0: no held-leases table")
                .doesNotContain("Scenario M: one client holds N leases");
        assertThat(run.err()).contains("scenario M on redis: 3,000 distinct names");
    }

    @Test
    void anUnknownScenarioIsABadArgument() {
        CliRun run = CliRun.of("bench", "--scenarios", "Z9");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("unknown scenario 'Z9'").contains("M").contains("async-waiters");
    }
}
