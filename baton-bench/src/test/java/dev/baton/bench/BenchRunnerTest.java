package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The runner on a real backend (Baton on H2) for a short time: every row is measured, no overlaps. */
class BenchRunnerTest {

    @Test
    void everyScenarioOnH2ProducesRatesLatenciesAndNoOverlaps() {
        List<String> progress = new ArrayList<>();
        List<ScenarioResult> results = BenchMain.run(
                List.of("h2"),
                List.of(Scenario.values()),
                new BenchSettings(Duration.ZERO, Duration.ofMillis(300), 1),
                null,
                new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
        long subjects = results.stream().map(ScenarioResult::subject).distinct().count();
        long barging = results.stream()
                .map(ScenarioResult::subject)
                .filter(subject -> subject.endsWith("barging"))
                .distinct()
                .count();
        assertThat(subjects).isPositive();
        assertThat(barging).as("fair=false variants beside the fair subjects").isPositive();
        long lockScenarios = java.util.Arrays.stream(Scenario.values())
                .filter(s -> !s.semaphore())
                .count();
        long contended = java.util.Arrays.stream(Scenario.values())
                .filter(s -> !s.semaphore() && s.contended())
                .count();
        assertThat(results.stream().filter(r -> !r.scenario().semaphore()))
                .as("every subject has every lock row, a barging one the contended rows only")
                .hasSize((int) ((subjects - barging) * lockScenarios + barging * contended));
        assertThat(results.stream().filter(r -> r.scenario().semaphore()))
                .as("S8 rows only for the subjects whose backend has semaphores")
                .hasSizeLessThanOrEqualTo((int) subjects);
        for (ScenarioResult result : results) {
            assertThat(result.overlaps()).as("%s overlaps", result.scenario()).isZero();
            assertThat(result.errors()).as("%s errors", result.scenario()).isZero();
            assertThat(result.pairsPerSecond()).as("%s rate", result.scenario()).isPositive();
            assertThat(result.pairP50Micros()).isPositive();
            // H2 runs inside the JVM: its CPU is the client's.
            assertThat(result.clientCpuMicrosPerPair())
                    .as("%s client CPU", result.scenario())
                    .isPositive();
            assertThat(Double.isNaN(result.handoffP50Micros()))
                    .as("%s hand-off measured only when a lock is contended", result.scenario())
                    .isEqualTo(
                            !result.scenario().contended() || result.scenario().semaphore());
            assertThat(result.fairness().measured())
                    .as("%s fairness measured only when contended", result.scenario())
                    .isEqualTo(result.scenario().contended());
        }
        String table = ResultTable.markdown(results);
        assertThat(table).contains("| baton table | C8 |");
        assertThat(ResultTable.throughputRatio(results, "baton table", "baton table", Scenario.A8))
                .hasValue(1.0);
        assertThat(progress).isEmpty();
    }

    @Test
    void aHoldKeepsEachHolderInsideForThatLongAndStillMeasuresHandOffs() {
        Duration hold = Duration.ofMillis(20);
        List<ScenarioResult> results = BenchMain.run(
                        List.of("h2"),
                        List.of(Scenario.A1, Scenario.B8),
                        new BenchSettings(Duration.ZERO, Duration.ofMillis(400), 1, 4, hold),
                        null,
                        List.of("baton table"), // also matches "baton table barging", left out below
                        new java.io.PrintStream(java.io.OutputStream.nullOutputStream()))
                .stream()
                .filter(result -> result.subject().equals("baton table"))
                .toList();
        assertThat(results).hasSize(2);
        for (ScenarioResult result : results) {
            assertThat(result.errors()).as("%s errors", result.scenario()).isZero();
            assertThat(result.overlaps()).as("%s overlaps", result.scenario()).isZero();
            // One name per row: holders follow each other, each inside for at least the hold.
            assertThat(result.pairsPerSecond())
                    .as("%s rate with a %s hold", result.scenario(), hold)
                    .isPositive()
                    .isLessThanOrEqualTo(1000.0 / hold.toMillis());
            assertThat(result.pairP50Micros()).isGreaterThanOrEqualTo(hold.toNanos() / 1000.0);
        }
        assertThat(results.get(1).handoffP50Micros()).isPositive();
    }

    @Test
    void settingsRefuseANegativeHold() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> new BenchSettings(Duration.ZERO, Duration.ofSeconds(1), 1, 8, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hold >= 0");
    }

    @Test
    void theTableListsEveryRunBesidesTheMedian() {
        ScenarioResult result = new ScenarioResult(
                "baton x",
                Scenario.C8,
                2_000,
                List.of(1_500.0, 2_000.0, 12_345.6),
                10,
                20,
                5,
                9,
                0,
                0,
                412.4,
                Double.NaN);
        assertThat(ResultTable.markdown(List.of(result)))
                .contains(
                        "| baton x | C8 | 2,000 | 1,500 / 2,000 / 12,346 | 10 | 20 | 5 | 9 | 412 | - | - | - | - | - | 0 | 0 |");
    }

    @Test
    void theTableShowsTheFairnessOfAContendedRow() {
        ScenarioResult result = new ScenarioResult(
                "redisson RSemaphore",
                Scenario.S8,
                900,
                List.of(900.0),
                10,
                20,
                Double.NaN,
                Double.NaN,
                0,
                0,
                412.4,
                Double.NaN,
                new ScenarioResult.Fairness(3.25, 1_500, 250_000, 0.4, 96.8));
        assertThat(ResultTable.markdown(List.of(result)))
                .contains("| to another client | wait p99 µs | wait max µs | grants min / max per client |")
                .contains("| redisson RSemaphore | S8 | 900 | 900 | 10 | 20 | - | - | 412 | - | 3.3% | 1,500 | 250,000"
                        + " | 0.4% / 96.8% | 0 | 0 |");
        assertThat(ResultTable.percent(97.4)).isEqualTo("97%");
        assertThat(ResultTable.percent(Double.NaN)).isEqualTo("-");
        assertThat(ResultTable.FAIRNESS_NOTE).contains("barging").contains("pairs/s");
    }

    @Test
    void durationsParse() {
        assertThat(BenchMain.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(BenchMain.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(BenchMain.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(BenchMain.parse("PT3S")).isEqualTo(Duration.ofSeconds(3));
    }
}
