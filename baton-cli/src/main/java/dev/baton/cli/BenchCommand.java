package dev.baton.cli;

import dev.baton.bench.BatonSubject;
import dev.baton.bench.BenchBackend;
import dev.baton.bench.BenchBackend.PlannedSubjects;
import dev.baton.bench.BenchBackends;
import dev.baton.bench.BenchRunner;
import dev.baton.bench.BenchSettings;
import dev.baton.bench.LockSubject;
import dev.baton.bench.RecoveryProbe;
import dev.baton.bench.ResultTable;
import dev.baton.bench.Scenario;
import dev.baton.bench.ScenarioResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs every backend through the same scenarios, on embedded servers it starts itself unless URIs
 * are given, prints one comparison table and writes an HTML report with charts.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "Benchmark backends side by side: acquire+release pairs per second uncontended (A8: 8 threads, 8"
                    + " names) and contended (C8: 8 clients, one name), hand-off latency from release() to the next"
                    + " holder, fairness (share of grants to another client, longest wait, spread of grants across"
                    + " clients), and the recovery time after a holder is killed with SIGKILL.",
            "Without --uri, embedded servers are started on free loopback ports; a backend whose server cannot"
                    + " start here is listed as skipped, with the reason."
        })
final class BenchCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--backends",
            split = ",",
            description = "Backends to run (default: all): ${COMPLETION-CANDIDATES}",
            completionCandidates = KnownBackends.class)
    List<String> backends;

    @Option(
            names = "--uri",
            description = "Use an external server instead of an embedded one: BACKEND=URI (e.g."
                    + " postgres=jdbc:postgresql://db/app?user=u&password=p); repeatable")
    List<String> uris = new ArrayList<>();

    @Option(
            names = "--full",
            description = "The long, repeated comparison: every scenario (S8, the semaphore, for the subjects that have"
                    + " semaphores), each row the median of 3 runs of 10s after a 2s warm-up (about an hour on 2 cores with every backend). Default: a quick comparison of A8 and C8, one run of"
                    + " 3s after a 1s warm-up per row (about 3 min). --scenarios, --duration, --warmup and --runs"
                    + " override either.")
    boolean full;

    @Option(
            names = "--duration",
            converter = DurationConverter.class,
            description = "Length of one measured run (default 3s, --full 10s); each row is the median of --runs runs")
    Duration duration;

    @Option(
            names = "--warmup",
            converter = DurationConverter.class,
            description = "Untimed warm-up before each run (default 1s, --full 2s, never longer than --duration)")
    Duration warmup;

    @Option(names = "--runs", description = "Measured runs per row (default 1, --full 3)")
    Integer runs;

    @Option(
            names = "--threads",
            defaultValue = "8",
            description = "Threads of the A8, B8 and C8 rows (default ${DEFAULT-VALUE})")
    int threads;

    @Option(
            names = "--hold",
            defaultValue = "0s",
            converter = DurationConverter.class,
            description = "How long each holder keeps the lock before releasing it (default ${DEFAULT-VALUE}: the"
                    + " lock alone); e.g. 1ms models a critical section waiting on I/O, so hand-offs happen with the"
                    + " waiters queued and the CPU free")
    Duration hold;

    @Option(
            names = "--scenarios",
            split = ",",
            description = "Scenarios (default A8,C8, --full A1,A8,B8,C8,S8): A1, A8, B8, C8, S8 (8 clients, one"
                    + " semaphore of 4 permits, for the subjects that have semaphores), M (one client holds"
                    + " --leases leases through --latency for 3 lease times, on Redis and PostgreSQL: long, so only when"
                    + " asked) and W, also named async-waiters (--waiters concurrent waiters on one client over"
                    + " --waiter-names names, asynchronous and blocking, on Redis, ZooKeeper, etcd and PostgreSQL: only"
                    + " when asked) and H (heap per held lease: one client holds --held-leases leases, beside"
                    + " Redisson, Curator and jetcd: only when asked)")
    List<String> scenarios;

    @CommandLine.Mixin
    LeaseScaleOptions leaseScale = new LeaseScaleOptions();

    @CommandLine.Mixin
    AsyncWaitersOptions asyncWaiters = new AsyncWaitersOptions();

    @CommandLine.Mixin
    HeldHeapOptions heldHeap = new HeldHeapOptions();

    @Option(
            names = "--report",
            defaultValue = "baton-report.html",
            description = "HTML report to write (default ${DEFAULT-VALUE})")
    Path report;

    @Option(names = "--no-recovery", description = "Skip the recovery-after-SIGKILL measurement")
    boolean noRecovery;

    static final class KnownBackends extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        KnownBackends() {
            super(BenchBackends.all().keySet());
        }
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Map<String, Supplier<BenchBackend>> known = BenchBackends.all();
        Map<String, String> external = new LinkedHashMap<>();
        for (String entry : uris) {
            int eq = entry.indexOf('=');
            String id = eq > 0 ? entry.substring(0, eq) : null;
            if (id == null || !known.containsKey(id)) {
                err.println(
                        "baton bench: --uri " + entry + " must be BACKEND=URI with BACKEND one of " + known.keySet());
                return ExitCodes.USAGE;
            }
            external.put(id, entry.substring(eq + 1));
        }
        List<String> selected = backends != null
                ? backends
                : !external.isEmpty() ? List.copyOf(external.keySet()) : List.copyOf(known.keySet());
        for (String id : selected) {
            if (!known.containsKey(id)) {
                err.println("baton bench: unknown backend '" + id + "'; known: " + String.join(", ", known.keySet()));
                return ExitCodes.USAGE;
            }
        }
        if ((runs != null && runs < 1) || threads < 1 || (duration != null && duration.isZero())) {
            err.println("baton bench: --runs and --threads must be at least 1 and --duration positive");
            return ExitCodes.USAGE;
        }
        List<Scenario> compared = scenarios == null ? null : new ArrayList<>();
        boolean scale = false;
        boolean waiters = false;
        boolean heap = false;
        for (String name : scenarios == null ? List.<String>of() : scenarios) {
            String upper = name.trim().toUpperCase(Locale.ROOT);
            if (upper.equals("M")) {
                scale = true;
                continue;
            }
            if (upper.equals("W") || upper.equals("ASYNC-WAITERS")) {
                waiters = true;
                continue;
            }
            if (upper.equals("H")) {
                heap = true;
                continue;
            }
            try {
                compared.add(Scenario.valueOf(upper));
            } catch (IllegalArgumentException e) {
                err.println("baton bench: unknown scenario '" + name + "'; known: A1, A8, B8, C8, S8, M, W"
                        + " (async-waiters), H");
                return ExitCodes.USAGE;
            }
        }
        int status = compared != null && compared.isEmpty() ? 0 : compare(selected, external, compared, out, err);
        if (status == 0 && scale) {
            status = leaseScale.run(backends, out, err);
        }
        if (status == 0 && waiters) {
            status = asyncWaiters.run(backends, out, err);
        }
        if (status == 0 && heap) {
            status = heldHeap.run(backends, leaseScale.lease, out, err);
        }
        return status;
    }

    /** The comparison of throughput, hand-off and recovery: one table and the HTML report. */
    private int compare(
            List<String> selected,
            Map<String, String> external,
            List<Scenario> compared,
            PrintWriter out,
            PrintWriter err) {
        Map<String, Supplier<BenchBackend>> known = BenchBackends.all();
        BenchPreset preset = full ? BenchPreset.FULL : BenchPreset.QUICK;
        BenchSettings settings = preset.settings(warmup, duration, runs, threads, hold);
        Map<String, BenchBackend> chosen = new LinkedHashMap<>();
        List<BenchPlan.Backend> planned = new ArrayList<>();
        for (String id : selected) {
            BenchBackend backend = known.get(id).get();
            chosen.put(id, backend);
            planned.add(new BenchPlan.Backend(
                    id, backend.plannedSubjects(external.containsKey(id)), backend.recoveryHolderLease()));
        }
        BenchPlan plan = new BenchPlan(planned, preset.scenarios(compared), settings, !noRecovery);
        err.println("baton bench: " + preset.name() + ": " + describe(plan));
        err.flush();

        List<BackendOutcome> outcomes = new ArrayList<>();
        Duration took;
        try (BenchProgress progress =
                new BenchProgress(plan, err, BenchProgress.stderrIsTerminal(), System::nanoTime)) {
            BenchRunner runner = new BenchRunner(settings, progress);
            for (Map.Entry<String, BenchBackend> backend : chosen.entrySet()) {
                outcomes.add(runBackend(backend.getValue(), external.get(backend.getKey()), plan, runner, progress));
            }
            took = progress.elapsed();
        }
        out.println();
        out.print(SummaryTable.markdown(outcomes, threads));
        out.println();
        out.println(ResultTable.FAIRNESS_NOTE);
        long overlaps = outcomes.stream()
                .flatMap(o -> o.results().stream())
                .mapToLong(ScenarioResult::overlaps)
                .sum();
        try {
            HtmlReport.write(report, outcomes, settings);
            out.println();
            out.println("Report: " + report.toAbsolutePath());
        } catch (IOException e) {
            err.println("baton bench: cannot write the report " + report + ": " + e.getMessage());
            return ExitCodes.SOFTWARE;
        }
        err.println("baton bench: done in " + BenchPlan.approximately(took) + " (estimated "
                + BenchPlan.approximately(plan.estimate()) + ")");
        if (overlaps > 0) {
            err.println("baton bench: SAFETY VIOLATION: " + overlaps + " overlapping critical sections were observed");
            return ExitCodes.SOFTWARE;
        }
        return 0;
    }

    /**
     * What will run and about how long it takes, e.g. {@code 30 rows: 15 subjects (h2, postgres, redis,
     * zookeeper) x A8, C8, 1 run of 3s after a 1s warm-up each: about 2 min 50 s}, and how long --full
     * would take instead of the defaults.
     */
    String describe(BenchPlan plan) {
        BenchSettings settings = plan.settings();
        String text = String.format(
                Locale.ROOT,
                "%d rows: %d subjects (%s) x %s, %d run%s of %s after a %s warm-up each: about %s",
                plan.rows(),
                plan.subjects(),
                plan.backends().stream().map(BenchPlan.Backend::id).collect(Collectors.joining(", ")),
                plan.scenarios().stream().map(Scenario::name).collect(Collectors.joining(", ")),
                settings.runs(),
                settings.runs() == 1 ? "" : "s",
                BenchPlan.option(settings.run()),
                BenchPlan.option(settings.warmup()),
                BenchPlan.approximately(plan.estimate()));
        boolean defaults = warmup == null && duration == null && runs == null && scenarios == null;
        if (full || !defaults) {
            return text;
        }
        BenchPreset longer = BenchPreset.FULL;
        BenchPlan fullPlan = plan.with(
                longer.settings(null, null, null, settings.threads(), settings.hold()), longer.scenarios(null));
        return text + "; --full (every scenario, median of " + longer.runs() + " runs of "
                + BenchPlan.option(longer.duration()) + "): about " + BenchPlan.approximately(fullPlan.estimate());
    }

    private BackendOutcome runBackend(
            BenchBackend backend, String uri, BenchPlan plan, BenchRunner runner, BenchProgress progress) {
        String id = backend.id();
        try (backend) {
            progress.backendStarting(
                    id, id + ": " + (uri == null ? "starting embedded server" : "connecting to " + uri));
            List<LockSubject> subjects;
            try {
                subjects = backend.start(uri);
            } catch (RuntimeException | LinkageError e) {
                String reason = rootMessage(e);
                progress.note(id + ": skipped: " + reason);
                return BackendOutcome.skipped(id, reason);
            }
            // Whether a Baton subject has semaphores costs a client: asked only when S8 is to run.
            boolean semaphores = plan.scenarios().stream().anyMatch(Scenario::semaphore);
            progress.backendStarted(new PlannedSubjects(
                    subjects.size(),
                    (int) subjects.stream().filter(BenchCommand::probed).count(),
                    semaphores
                            ? (int) subjects.stream()
                                    .filter(s -> s.runs(Scenario.S8))
                                    .count()
                            : 0,
                    (int) subjects.stream().filter(s -> !s.runs(Scenario.A8)).count()));
            List<ScenarioResult> results = new ArrayList<>();
            Map<String, String> recovery = new LinkedHashMap<>();
            try {
                for (Scenario scenario : plan.scenarios()) {
                    results.addAll(runner.runInterleaved(subjects, scenario));
                }
                for (LockSubject subject : subjects) {
                    recovery.put(subject.name(), recovery(subject, backend.recoveryHolderLease(), progress));
                }
            } finally {
                subjects.forEach(LockSubject::close);
            }
            return new BackendOutcome(
                    id, null, results, recovery, backend.consistencyModel(), backend.waiterNotification());
        } catch (RuntimeException e) {
            String reason = rootMessage(e);
            progress.note(id + ": failed: " + reason);
            return BackendOutcome.skipped(id, "failed: " + reason);
        } finally {
            progress.backendDone();
        }
    }

    /** Whether the subject gets a recovery probe: Baton, reachable by URI from another process. */
    private static boolean probed(LockSubject subject) {
        return subject instanceof BatonSubject baton && baton.uri().isPresent();
    }

    private String recovery(LockSubject subject, Duration holderLease, BenchProgress progress) {
        if (noRecovery) {
            return "not measured";
        }
        if (!probed(subject)) {
            return "-";
        }
        progress.probeStarting(subject.name());
        try {
            return BackendOutcome.formatRecovery(
                    RecoveryProbe.measure(((BatonSubject) subject).uri().orElseThrow(), holderLease));
        } catch (RuntimeException e) {
            return "n/a (" + rootMessage(e) + ")";
        }
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return message.lines().findFirst().orElse(message);
    }
}
