package dev.baton.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Short check runs on real servers, each backend with its whole fault set in one run: Baton keeps its
 * guarantees, and the checker finds what is wrong with every naive lock (so that Baton's clean result
 * is not the checker seeing nothing). The runs are independent (servers, clients and histories of
 * their own), so two run side by side (junit-platform.properties).
 */
@Execution(ExecutionMode.CONCURRENT)
class CheckRunsTest {
    /** The naive locks' runs: one seed, 10 s. */
    private static final CheckSettings SETTINGS =
            new CheckSettings(3, Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofMillis(20), 2, 11);

    /**
     * Baton's runs: each backend on one fixed seed, 4 s, the two seeds taken in turn by the backends
     * (neither tuned for: each seed must come out clean on the backends it falls to). A run injects
     * every fault of its set in turn whatever its seed, so a second seed on the same backend adds no
     * fault kind and no topology, only other fault times and victims: that is the seed sweep's work,
     * {@code baton check --seeds 1-20} (README).
     */
    private static final long SEED = 11L;

    private static final long OTHER_SEED = 23L;

    /**
     * Baton's runs under faults have two clients: every fault still meets a holder and a client that
     * wants its lock (a paused or cut-off holder, the other taking over), and a server fault cuts off
     * both; the naive locks keep three to be caught. A client is a JVM of its own, and most of its CPU
     * is its start.
     */
    private static final CheckSettings BATON = SETTINGS.withClients(2);

    private static final CheckSettings SMOKE = BATON.withDuration(Duration.ofSeconds(4));

    private static final CheckSuite.Progress QUIET = new CheckSuite.Progress() {
        @Override
        public void started(int index, int total, CheckSuite.PlannedRun run) {}

        @Override
        public void running(double fraction) {}

        @Override
        public void finished(CheckRow row) {}
    };

    private static CheckRow run(String target, CheckSettings settings, Set<Fault> faults) throws InterruptedException {
        List<CheckSuite.PlannedRun> plan = CheckSuite.plan(List.of(target), faults, true, settings);
        assertThat(plan).hasSize(1);
        return CheckSuite.run(plan, settings, QUIET).get(0);
    }

    /** The run of {@code target} on {@code seed}, its faults in turn. */
    private static CheckRow runSeed(String target, CheckSettings settings, Set<Fault> faults, long seed)
            throws InterruptedException {
        CheckRow row = run(target, settings.withSeed(seed), faults);
        assertThat(row.seed()).isEqualTo(seed);
        return row;
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
        assertBatonKeptItsGuarantees(runSeed("postgres", SMOKE, null, SEED));
    }

    /** Also: a paused holder lets another client in, and the fence catches its stale write. */
    @Test
    void redisUnderEveryFault() throws InterruptedException {
        CheckRow row = runSeed("redis", SMOKE, null, OTHER_SEED);
        assertBatonKeptItsGuarantees(row);
        assertThat(row.result().isolatedOverlaps())
                .as("the pauses let another client in: %s", row)
                .isPositive();
    }

    /** The faults that differ on Redlock: a master restarted empty, and a paused holder. */
    @Test
    void redlockUnderARestartedMasterAndAPause() throws InterruptedException {
        assertBatonKeptItsGuarantees(runSeed("redlock", SMOKE, Set.of(Fault.RESTART, Fault.PAUSE), SEED));
    }

    /**
     * Every fault, SIGSTOP included: a client stopped past its session timeout must not take a lock
     * on an answer or a watch event it reads when it runs again (its session expired meanwhile, and
     * its node with it); see ZooKeeperStoppedWaiterTest in baton-zookeeper.
     */
    @Test
    void zookeeperUnderEveryFault() throws InterruptedException {
        assertBatonKeptItsGuarantees(runSeed("zookeeper", SMOKE, null, OTHER_SEED));
    }

    /**
     * A session that frees a silent holder's lock before its lease time runs out, asked for by the URI
     * or lowered by the servers: a holder stopped or cut off past it must not, back at work, still
     * believe its lease valid beside the next holder (strict, the earlier holder's BELIEVED events).
     */
    @Test
    void zookeeperWithASessionShorterThanTheLeaseUnderPauseAndCut() throws InterruptedException {
        for (String target : List.of("zookeeper-short-session", "zookeeper-clamped")) {
            assertBatonKeptItsGuarantees(run(target, SMOKE, Set.of(Fault.PAUSE, Fault.CUT)));
        }
    }

    /**
     * etcd's 2 s minimum lease: the run's 1 s lease is raised to it (and the run stretched), so that
     * a stopped or cut-off holder does lose its key. Strict: no overlap while a holder ran freely,
     * under a member restart and a kill of the Raft leader too.
     */
    @Test
    void etcdClusterUnderEveryFaultIncludingALeaderKill() throws InterruptedException {
        CheckSettings settings = BATON.withDuration(Duration.ofSeconds(3));
        CheckRow row = runSeed("etcd-cluster", settings, null, OTHER_SEED);
        assertThat(row.faults())
                .containsExactly(Fault.KILL, Fault.PAUSE, Fault.CUT, Fault.BLACKHOLE, Fault.RESTART, Fault.LEADER_KILL);
        assertThat(row.strict()).isTrue();
        assertThat(row.duration()).as("stretched with the lease").isEqualTo(Duration.ofSeconds(6));
        assertBatonKeptItsGuarantees(row);
    }

    /**
     * A seed sweep, on the one-member etcd restarted (its leases outlive the outage): one run per
     * seed, each with its seed on its row, and a summary naming the worst run's seed.
     */
    @Test
    void aSeedSweepRunsEachSeedAndSummarisesPerBackend() throws InterruptedException {
        CheckSettings settings = BATON.withDuration(Duration.ofSeconds(2));
        List<CheckSuite.PlannedRun> plan =
                CheckSuite.plan(List.of("etcd"), Set.of(Fault.RESTART), false, settings, List.of(5L, 6L));
        assertThat(plan).extracting(CheckSuite.PlannedRun::seed).containsExactly(5L, 6L);
        List<CheckRow> rows = CheckSuite.run(plan, settings, QUIET);
        assertThat(rows).extracting(CheckRow::seed).containsExactly(5L, 6L);
        rows.forEach(CheckRunsTest::assertBatonKeptItsGuarantees);
        List<CheckSummary> summaries = CheckSummary.of(rows);
        assertThat(summaries).hasSize(1);
        CheckSummary etcd = summaries.get(0);
        assertThat(etcd.target()).isEqualTo("etcd");
        assertThat(etcd.runs()).isEqualTo(2);
        assertThat(etcd.violations()).isZero();
        assertThat(etcd.notFound()).isZero();
        assertThat(etcd.clean()).isTrue();
        assertThat(etcd.worst().seed()).isIn(5L, 6L);
    }

    @Test
    void sentinelWithTheDefaultsLosesNoGrantInAFailover() throws InterruptedException {
        CheckRow row =
                runSeed("redis-sentinel", BATON.withDuration(Duration.ofSeconds(3)), Set.of(Fault.FAILOVER), SEED);
        assertBatonKeptItsGuarantees(row);
        assertThat(row.result().unexplainedOverlaps())
                .as("a grant the replica acknowledged survives the failover: %s", row)
                .isZero();
    }

    /**
     * A Redis Cluster master that holds a lock failed over (its replicas held back first), then back
     * as a replica: with the defaults no grant is lost, and the row tells the grants per second
     * beside those of the same run without faults.
     */
    @Test
    void clusterWithTheDefaultsLosesNoGrantInAFailover() throws InterruptedException {
        CheckSettings settings = BATON.withDuration(Duration.ofSeconds(2));
        List<CheckSuite.PlannedRun> plan =
                CheckSuite.plan(List.of("redis-cluster"), Set.of(Fault.FAILOVER), true, settings);
        CheckRow row = CheckSuite.run(plan, settings, QUIET, true).get(0);
        assertBatonKeptItsGuarantees(row);
        assertThat(row.result().unexplainedOverlaps())
                .as("a grant a replica acknowledged survives the failover: %s", row)
                .isZero();
        assertThat(row.availability())
                .as("measured against the run without faults: %s", row)
                .isPositive();
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
