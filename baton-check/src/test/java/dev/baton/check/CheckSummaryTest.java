package dev.baton.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The summary of a seed sweep, on rows made by hand. */
class CheckSummaryTest {

    private static CheckRow row(String target, boolean naive, long seed, int overlaps, int isolated, int stale) {
        CheckResult result =
                new CheckResult(100, 0, overlaps, isolated, Duration.ZERO, 0, stale, 0, 0, 0, List.of(), 0, 0.0, null);
        return new CheckRow(target, target, naive, true, List.of(Fault.PAUSE), 3, Duration.ofSeconds(6), seed, result);
    }

    @Test
    void countsRunsViolationsAndNaiveMissesPerBackendAndNamesTheWorstRunsSeed() {
        List<CheckSummary> summaries = CheckSummary.of(List.of(
                row("etcd", false, 1, 0, 0, 0),
                row("etcd", false, 2, 2, 2, 0), // overlaps under isolation only: safe
                row("etcd", false, 3, 3, 1, 0), // 2 unexplained: a violation
                row("etcd", false, 4, 1, 0, 1), // 1 unexplained and a stale write accepted: the worst
                row("naive-setnx", true, 1, 4, 0, 2),
                row("naive-setnx", true, 2, 0, 0, 0))); // found nothing

        assertThat(summaries).extracting(CheckSummary::target).containsExactly("etcd", "naive-setnx");
        CheckSummary etcd = summaries.get(0);
        assertThat(etcd.runs()).isEqualTo(4);
        assertThat(etcd.violations()).isEqualTo(2);
        assertThat(etcd.notFound()).isZero();
        assertThat(etcd.worst().seed()).isEqualTo(4);
        assertThat(etcd.clean()).isFalse();

        CheckSummary naive = summaries.get(1);
        assertThat(naive.violations()).isZero();
        assertThat(naive.notFound()).isEqualTo(1);
        assertThat(naive.worst().seed())
                .as("a naive lock not caught is its worst run")
                .isEqualTo(2);
        assertThat(naive.clean()).isFalse();
    }

    @Test
    void aCleanSweepIsClean() {
        List<CheckSummary> summaries =
                CheckSummary.of(List.of(row("redis", false, 7, 0, 0, 0), row("redis", false, 11, 1, 1, 0)));
        assertThat(summaries.get(0).clean()).isTrue();
        assertThat(summaries.get(0).worst().seed()).isEqualTo(11);
    }

    @Test
    void aRunsScheduleDependsOnItsSeedAloneNotOnTheJvm() {
        // Fault's hash code is its identity's; the run's random must not see it (a seed re-runs a run).
        CheckSettings settings = CheckSettings.defaults().withSeed(42);
        CheckTarget target = EtcdTargets.single();
        assertThat(CheckRun.scheduleSeed(target, List.of(Fault.PAUSE, Fault.KILL), settings))
                .isEqualTo(42L * 1_000_003
                        + "etcd".hashCode() * 31L
                        + List.of("PAUSE", "KILL").hashCode());
    }
}
