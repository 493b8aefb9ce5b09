package dev.baton.cli;

import dev.baton.bench.BatonSubject;
import dev.baton.bench.BenchBackend;
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
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
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
                    + " holder, and the recovery time after a holder is killed with SIGKILL.",
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
            names = "--duration",
            defaultValue = "10s",
            converter = DurationConverter.class,
            description =
                    "Length of one measured run (default ${DEFAULT-VALUE}); each row is the median of --runs runs")
    Duration duration;

    @Option(
            names = "--warmup",
            converter = DurationConverter.class,
            description = "Untimed warm-up before each row (default: the shorter of 2s and --duration)")
    Duration warmup;

    @Option(names = "--runs", defaultValue = "3", description = "Measured runs per row (default ${DEFAULT-VALUE})")
    int runs;

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

    @Option(names = "--scenarios", split = ",", description = "Scenarios (default: all): A1, A8, B8, C8")
    List<Scenario> scenarios;

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
        if (runs < 1 || threads < 1 || duration.isZero()) {
            err.println("baton bench: --runs and --threads must be at least 1 and --duration positive");
            return ExitCodes.USAGE;
        }
        Duration warm = warmup != null
                ? warmup
                : duration.compareTo(Duration.ofSeconds(2)) < 0 ? duration : Duration.ofSeconds(2);
        BenchSettings settings = new BenchSettings(warm, duration, runs, threads, hold);
        List<Scenario> rows = scenarios != null ? scenarios : List.of(Scenario.values());
        long started = System.nanoTime();
        BenchRunner runner = new BenchRunner(settings, line -> {
            err.printf(Locale.ROOT, "[%5.1fs] %s%n", (System.nanoTime() - started) / 1e9, line);
            err.flush();
        });

        List<BackendOutcome> outcomes = new ArrayList<>();
        for (String id : selected) {
            outcomes.add(runBackend(id, known.get(id), external.get(id), rows, runner, err, started));
        }
        out.println();
        out.print(summaryTable(outcomes, threads));
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
        if (overlaps > 0) {
            err.println("baton bench: SAFETY VIOLATION: " + overlaps + " overlapping critical sections were observed");
            return ExitCodes.SOFTWARE;
        }
        return 0;
    }

    private BackendOutcome runBackend(
            String id,
            Supplier<BenchBackend> factory,
            String uri,
            List<Scenario> rows,
            BenchRunner runner,
            PrintWriter err,
            long started) {
        try (BenchBackend backend = factory.get()) {
            log(err, started, id + ": " + (uri == null ? "starting embedded server" : "connecting to " + uri));
            List<LockSubject> subjects;
            try {
                subjects = backend.start(uri);
            } catch (RuntimeException | LinkageError e) {
                String reason = rootMessage(e);
                log(err, started, id + ": skipped: " + reason);
                return BackendOutcome.skipped(id, reason);
            }
            List<ScenarioResult> results = new ArrayList<>();
            Map<String, String> recovery = new LinkedHashMap<>();
            try {
                for (Scenario scenario : rows) {
                    results.addAll(runner.runInterleaved(subjects, scenario));
                }
                for (LockSubject subject : subjects) {
                    recovery.put(subject.name(), recovery(subject, err, started));
                }
            } finally {
                subjects.forEach(LockSubject::close);
            }
            return new BackendOutcome(
                    id, null, results, recovery, backend.consistencyModel(), backend.waiterNotification());
        } catch (RuntimeException e) {
            String reason = rootMessage(e);
            log(err, started, id + ": failed: " + reason);
            return BackendOutcome.skipped(id, "failed: " + reason);
        }
    }

    private String recovery(LockSubject subject, PrintWriter err, long started) {
        if (noRecovery) {
            return "not measured";
        }
        Optional<String> uri = subject instanceof BatonSubject baton ? baton.uri() : Optional.empty();
        if (uri.isEmpty()) {
            return "-";
        }
        log(
                err,
                started,
                subject.name() + ": measuring recovery after SIGKILL of a holder (lease "
                        + RecoveryProbe.HOLDER_LEASE.toSeconds() + " s)");
        try {
            return BackendOutcome.formatRecovery(RecoveryProbe.measure(uri.get()));
        } catch (RuntimeException e) {
            return "n/a (" + rootMessage(e) + ")";
        }
    }

    private static void log(PrintWriter err, long started, String line) {
        err.printf(Locale.ROOT, "[%5.1fs] %s%n", (System.nanoTime() - started) / 1e9, line);
        err.flush();
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return message.lines().findFirst().orElse(message);
    }

    /** The one table: one row per subject of each backend. */
    static String summaryTable(List<BackendOutcome> outcomes, int threads) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT,
                "| backend | strategy | uncontended pairs/s (A%d) | contended pairs/s (C%d) | hand-off p50 / p99 ms (C%d) | recovery after holder killed | consistency | waiters notified by |%n",
                threads,
                threads,
                threads));
        out.append("|---|---|---:|---:|---:|---:|---|---|\n");
        for (BackendOutcome outcome : outcomes) {
            if (outcome.skipped() != null) {
                out.append("| ")
                        .append(outcome.backend())
                        .append(" | skipped: ")
                        .append(outcome.skipped().replace('|', '/'))
                        .append(" | | | | | | |\n");
                continue;
            }
            List<String> subjects = outcome.results().stream()
                    .map(ScenarioResult::subject)
                    .distinct()
                    .toList();
            for (String subject : subjects) {
                Optional<ScenarioResult> uncontended = ResultTable.find(outcome.results(), subject, Scenario.A8);
                Optional<ScenarioResult> contended = ResultTable.find(outcome.results(), subject, Scenario.C8);
                out.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %s | %s | %s | %s | %s | %s |%n",
                        outcome.backend(),
                        subject,
                        uncontended
                                .map(r -> String.format(Locale.ROOT, "%,.0f", r.pairsPerSecond()))
                                .orElse("-"),
                        contended
                                .map(r -> String.format(Locale.ROOT, "%,.0f", r.pairsPerSecond()))
                                .orElse("-"),
                        contended
                                .map(r -> String.format(
                                        Locale.ROOT,
                                        "%.2f / %.2f",
                                        r.handoffP50Micros() / 1000,
                                        r.handoffP99Micros() / 1000))
                                .orElse("-"),
                        outcome.recovery().getOrDefault(subject, "-"),
                        subject.startsWith("baton") ? outcome.consistency() : "",
                        subject.startsWith("baton") ? outcome.waiters() : ""));
            }
        }
        return out.toString();
    }
}
