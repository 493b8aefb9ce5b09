package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code baton bench --scenarios async-waiters}: wired to scenario W, tiny, on embedded ZooKeeper. */
@Timeout(180)
class AsyncWaitersCommandTest {

    @Test
    void asyncWaitersRunsBothApisOnZooKeeperAndPrintsItsTableOnly() {
        CliRun run = CliRun.of(
                "bench",
                "--scenarios",
                "async-waiters",
                "--backends",
                "zookeeper",
                "--waiters",
                "100",
                "--waiter-names",
                "10");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("Scenario W: 100 concurrent waiters on one client over 10 names")
                .containsPattern("\\| zookeeper \\| async \\| 100 of 100 \\| 0 \\| 0 \\| ")
                .containsPattern("\\| zookeeper \\| blocking, platform threads \\| 100 of 100 \\| 0 \\| 0 \\| ")
                .as("only scenario W was asked for: no comparison table")
                .doesNotContain("uncontended pairs/s");
        assertThat(run.err()).contains("scenario W on zookeeper: 100 waiters over 10 names, async then blocking");
    }

    @Test
    void tooFewWaitersForTheNamesIsABadArgument() {
        CliRun run = CliRun.of("bench", "--scenarios", "W", "--waiters", "5", "--waiter-names", "10");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("--waiters of at least --waiter-names");
    }
}
