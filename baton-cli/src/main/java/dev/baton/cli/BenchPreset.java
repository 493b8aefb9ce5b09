package dev.baton.cli;

import dev.baton.bench.BenchSettings;
import dev.baton.bench.Scenario;
import java.time.Duration;
import java.util.List;

/**
 * The defaults of {@code baton bench}: a quick comparison that fits a newcomer's patience (about 3
 * minutes on 2 cores), or with {@code --full} the long, repeated one (about 55 minutes with every
 * backend, the semaphore row S8 included). Explicit options override either.
 *
 * @param name how the run is introduced
 * @param scenarios scenarios when --scenarios is not given
 * @param warmup warm-up before each run when --warmup is not given (never longer than the run)
 * @param duration measured run when --duration is not given
 * @param runs runs per row when --runs is not given
 */
record BenchPreset(String name, List<Scenario> scenarios, Duration warmup, Duration duration, int runs) {

    /** The two columns of the summary table (A8, C8), one run of 3 s after a 1 s warm-up. */
    static final BenchPreset QUICK = new BenchPreset(
            "quick comparison", List.of(Scenario.A8, Scenario.C8), Duration.ofSeconds(1), Duration.ofSeconds(3), 1);

    /**
     * Every scenario (S8 for the subjects with semaphores), the median of 3 runs of 10 s, each after a
     * 2 s warm-up.
     */
    static final BenchPreset FULL = new BenchPreset(
            "full comparison", List.of(Scenario.values()), Duration.ofSeconds(2), Duration.ofSeconds(10), 3);

    /** The settings and scenarios of a run: the options given, this preset for the others. */
    BenchSettings settings(
            Duration givenWarmup, Duration givenDuration, Integer givenRuns, int threads, Duration hold) {
        Duration run = givenDuration != null ? givenDuration : duration;
        Duration warm = givenWarmup != null ? givenWarmup : warmup.compareTo(run) < 0 ? warmup : run;
        return new BenchSettings(warm, run, givenRuns != null ? givenRuns : runs, threads, hold);
    }

    List<Scenario> scenarios(List<Scenario> given) {
        return given != null ? given : scenarios;
    }
}
