package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.bench.BenchBackend.PlannedSubjects;
import dev.baton.bench.BenchSettings;
import dev.baton.bench.Scenario;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The plan's arithmetic and the presets behind {@code baton bench}'s defaults. */
class BenchPlanTest {
    static final List<BenchPlan.Backend> H2_AND_POSTGRES = List.of(
            new BenchPlan.Backend("h2", new PlannedSubjects(2, 2)),
            new BenchPlan.Backend("postgres", new PlannedSubjects(7, 4)));

    @Test
    void theEstimateIsRowsTimesRunsTimesWarmUpAndRunPlusStartUpsProbesAndOverheads() {
        BenchSettings settings = BenchPreset.QUICK.settings(null, null, null, 8, Duration.ZERO);
        BenchPlan plan = new BenchPlan(H2_AND_POSTGRES, BenchPreset.QUICK.scenarios(null), settings, true);

        assertThat(plan.rows()).isEqualTo(18);
        assertThat(plan.runs()).isEqualTo(18);
        Duration runs = Duration.ofSeconds(4)
                .plus(BenchPlan.RUN_OVERHEAD)
                .multipliedBy(18)
                .plus(BenchPlan.CLIENTS_OVERHEAD.multipliedBy(9));
        assertThat(plan.estimate())
                .isEqualTo(BenchPlan.FIXED
                        .plus(BenchPlan.START_UP.multipliedBy(2))
                        .plus(runs)
                        .plus(BenchPlan.PROBE.multipliedBy(6)));
        assertThat(new BenchPlan(H2_AND_POSTGRES, plan.scenarios(), settings, false).estimate())
                .as("without recovery probes")
                .isEqualTo(plan.estimate().minus(BenchPlan.PROBE.multipliedBy(6)));
    }

    @Test
    void aBackendWhoseProbeHolderNeedsALongerLeaseAddsTheDifferenceToTheEstimate() {
        BenchSettings settings = BenchPreset.QUICK.settings(null, null, null, 8, Duration.ZERO);
        List<Scenario> scenarios = BenchPreset.QUICK.scenarios(null);
        BenchPlan redis = new BenchPlan(
                List.of(new BenchPlan.Backend("redis", new PlannedSubjects(3, 1))), scenarios, settings, true);
        BenchPlan azure = new BenchPlan(
                List.of(new BenchPlan.Backend("azure", new PlannedSubjects(3, 1), Duration.ofSeconds(15))),
                scenarios,
                settings,
                true);
        assertThat(azure.estimate()).isEqualTo(redis.estimate().plusSeconds(13));
        assertThat(new BenchPlan(azure.backends(), scenarios, settings, false).estimate())
                .as("without recovery probes the holder's lease does not matter")
                .isEqualTo(new BenchPlan(redis.backends(), scenarios, settings, false).estimate());
    }

    @Test
    void quickIsA8AndC8OnceFor3sAfter1sAndFullIsEveryScenario3TimesFor10sAfter2s() {
        BenchSettings quick = BenchPreset.QUICK.settings(null, null, null, 8, Duration.ZERO);
        assertThat(BenchPreset.QUICK.scenarios(null)).containsExactly(Scenario.A8, Scenario.C8);
        assertThat(quick.warmup()).isEqualTo(Duration.ofSeconds(1));
        assertThat(quick.run()).isEqualTo(Duration.ofSeconds(3));
        assertThat(quick.runs()).isEqualTo(1);

        BenchSettings full = BenchPreset.FULL.settings(null, null, null, 8, Duration.ZERO);
        assertThat(BenchPreset.FULL.scenarios(null))
                .containsExactly(Scenario.values())
                .contains(Scenario.S8);
        assertThat(full.warmup()).isEqualTo(Duration.ofSeconds(2));
        assertThat(full.run()).isEqualTo(Duration.ofSeconds(10));
        assertThat(full.runs()).isEqualTo(3);
    }

    @Test
    void explicitOptionsOverrideThePresetAndTheWarmUpIsNeverLongerThanTheRun() {
        BenchSettings settings = BenchPreset.FULL.settings(null, Duration.ofMillis(500), 2, 4, Duration.ofMillis(1));
        assertThat(settings.run()).isEqualTo(Duration.ofMillis(500));
        assertThat(settings.warmup()).isEqualTo(Duration.ofMillis(500));
        assertThat(settings.runs()).isEqualTo(2);
        assertThat(settings.threads()).isEqualTo(4);
        assertThat(settings.hold()).isEqualTo(Duration.ofMillis(1));
        assertThat(BenchPreset.QUICK
                        .settings(Duration.ZERO, null, null, 8, Duration.ZERO)
                        .warmup())
                .isZero();
        assertThat(BenchPreset.QUICK.scenarios(List.of(Scenario.B8))).containsExactly(Scenario.B8);
    }

    @Test
    void theSemaphoreRowCountsOnlyTheSubjectsWithSemaphores() {
        BenchSettings settings = BenchPreset.QUICK.settings(null, null, null, 8, Duration.ZERO);
        List<BenchPlan.Backend> redis = List.of(new BenchPlan.Backend("redis", new PlannedSubjects(3, 1, 2)));
        BenchPlan withS8 = new BenchPlan(redis, List.of(Scenario.C8, Scenario.S8), settings, false);
        BenchPlan c8 = new BenchPlan(redis, List.of(Scenario.C8), settings, false);

        assertThat(withS8.rows()).isEqualTo(5);
        assertThat(withS8.subjects()).isEqualTo(3);
        assertThat(withS8.estimate())
                .isEqualTo(c8.estimate().plus(withS8.run(Scenario.S8).multipliedBy(2)));
        assertThat(withS8.run(Scenario.S8)).as("S8 opens a client per thread").isEqualTo(withS8.run(Scenario.C8));
    }

    @Test
    void durationsReadAsEstimatesClocksAndOptions() {
        assertThat(BenchPlan.approximately(Duration.ofSeconds(45))).isEqualTo("45 s");
        assertThat(BenchPlan.approximately(Duration.ofSeconds(168))).isEqualTo("2 min 50 s");
        assertThat(BenchPlan.approximately(Duration.ofSeconds(178))).isEqualTo("3 min");
        assertThat(BenchPlan.approximately(Duration.ofSeconds(2262))).isEqualTo("38 min");
        assertThat(BenchPlan.clock(Duration.ofSeconds(65))).isEqualTo("1:05");
        assertThat(BenchPlan.clock(Duration.ofSeconds(-3))).isEqualTo("0:00");
        assertThat(BenchPlan.option(Duration.ofMillis(500))).isEqualTo("500ms");
        assertThat(BenchPlan.option(Duration.ofSeconds(3))).isEqualTo("3s");
        assertThat(BenchPlan.option(Duration.ofMinutes(2))).isEqualTo("2m");
    }
}
