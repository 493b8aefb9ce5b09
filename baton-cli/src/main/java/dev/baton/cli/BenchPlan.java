package dev.baton.cli;

import dev.baton.bench.BenchBackend.PlannedSubjects;
import dev.baton.bench.BenchMain;
import dev.baton.bench.BenchSettings;
import dev.baton.bench.RecoveryProbe;
import dev.baton.bench.Scenario;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What a {@code baton bench} run will do, known before any server starts, and about how long it
 * takes. A row is one subject in one scenario; each row is measured {@code runs} times, each run after
 * its warm-up. The overheads below are rough averages over the backends, from one run of each (see
 * docs/performance.md); runs themselves last exactly as long as asked.
 *
 * @param backends the backends to run, in order, with the subjects each will offer
 * @param scenarios the scenarios every subject runs
 * @param settings warm-up, run length and runs per row
 * @param recovery whether each Baton subject gets a recovery probe
 */
record BenchPlan(List<Backend> backends, List<Scenario> scenarios, BenchSettings settings, boolean recovery) {

    /** Starting the embedded server and loading the first connection's classes: H2 quicker, Redis slower. */
    static final Duration START_UP = Duration.ofSeconds(2);

    /** Opening and closing a run's client. */
    static final Duration RUN_OVERHEAD = Duration.ofMillis(100);

    /** A scenario with a client per thread opens 8 of them: JDBC's are quicker, Curator's and Redisson's slower. */
    static final Duration CLIENTS_OVERHEAD = Duration.ofMillis(500);

    /**
     * A recovery probe forks a JVM that takes the lock with a 2 s lease and is killed, then waits for
     * the lock: about the lease, longer for ZooKeeper, whose lock lives as long as the bench's 10 s
     * session.
     */
    static final Duration PROBE = Duration.ofSeconds(3);

    /** The command's own JVM start and the report. */
    static final Duration FIXED = Duration.ofSeconds(4);

    /**
     * One backend of the plan.
     *
     * @param probeLease the lease of the holder its recovery probe kills (15 s on Azure Blob, whose
     *     probe takes that much longer than {@link #PROBE})
     */
    record Backend(String id, PlannedSubjects subjects, Duration probeLease) {
        Backend(String id, PlannedSubjects subjects) {
            this(id, subjects, RecoveryProbe.HOLDER_LEASE);
        }
    }

    BenchPlan {
        backends = List.copyOf(backends);
        scenarios = List.copyOf(scenarios);
    }

    /** The subjects the plan counts for backend {@code id}. */
    PlannedSubjects subjects(String id) {
        return backends.stream()
                .filter(b -> b.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("backend " + id + " is not in the plan"))
                .subjects();
    }

    /**
     * Subjects x scenarios, over all backends; the semaphore scenario counts only the subjects with
     * semaphores.
     */
    int rows() {
        int rows = 0;
        for (Backend backend : backends) {
            for (Scenario scenario : scenarios) {
                rows += backend.subjects().running(scenario);
            }
        }
        return rows;
    }

    /** The subjects of all backends. */
    int subjects() {
        return backends.stream().mapToInt(b -> b.subjects().total()).sum();
    }

    /** Measured runs, over all backends: rows x runs. */
    int runs() {
        return rows() * settings.runs();
    }

    /** The whole run, from the command's start to the report. */
    Duration estimate() {
        Duration total = FIXED;
        for (Backend backend : backends) {
            total = total.plus(START_UP).plus(afterStart(backend.subjects()));
            if (recovery && backend.probeLease().compareTo(RecoveryProbe.HOLDER_LEASE) > 0) {
                total = total.plus(backend.probeLease()
                        .minus(RecoveryProbe.HOLDER_LEASE)
                        .multipliedBy(backend.subjects().baton()));
            }
        }
        return total;
    }

    /** What a backend with these subjects costs once its server runs: its runs, then its probes. */
    Duration afterStart(PlannedSubjects subjects) {
        Duration rows = Duration.ZERO;
        for (Scenario scenario : scenarios) {
            rows = rows.plus(run(scenario).multipliedBy(subjects.running(scenario)));
        }
        Duration probes = recovery ? PROBE.multipliedBy(subjects.baton()) : Duration.ZERO;
        return rows.multipliedBy(settings.runs()).plus(probes);
    }

    /** One run of one subject: its warm-up, the measured run and opening its clients. */
    Duration run(Scenario scenario) {
        return settings.warmup()
                .plus(settings.run())
                .plus(RUN_OVERHEAD)
                .plus(scenario.clientPerThread() ? CLIENTS_OVERHEAD : Duration.ZERO);
    }

    /** This plan with other settings and scenarios: what the same backends would take with them. */
    BenchPlan with(BenchSettings otherSettings, List<Scenario> otherScenarios) {
        return new BenchPlan(backends, otherScenarios, otherSettings, recovery);
    }

    /** {@code 45 s}, {@code 2 min 50 s}, {@code 38 min}: estimates, rounded to what matters. */
    static String approximately(Duration duration) {
        long seconds = duration.toSeconds();
        if (seconds < 60) {
            return seconds + " s";
        }
        if (seconds < 600) {
            long tens = Math.round(seconds / 10.0) * 10;
            return tens % 60 == 0 ? tens / 60 + " min" : tens / 60 + " min " + tens % 60 + " s";
        }
        return Math.round(seconds / 60.0) + " min";
    }

    /** {@code 1:05}, {@code 38:10}: a clock reading for elapsed and remaining time. */
    static String clock(Duration duration) {
        long seconds = Math.max(0, duration.toSeconds());
        return String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
    }

    /** {@code 500ms}, {@code 3s}, {@code 2m}: an option's value as one would type it. */
    static String option(Duration duration) {
        return BenchMain.format(duration);
    }
}
