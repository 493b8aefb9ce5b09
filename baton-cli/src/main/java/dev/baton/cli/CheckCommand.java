package dev.baton.cli;

import dev.baton.check.CheckRow;
import dev.baton.check.CheckSettings;
import dev.baton.check.CheckSuite;
import dev.baton.check.Fault;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs client JVMs against each backend while faults hit them, and reports what the checker found in
 * their history: overlapping holds, stale writes caught or accepted by the fenced resource, losses
 * never reported, recovery after a holder died.
 */
@Command(
        name = "check",
        mixinStandardHelpOptions = true,
        description = {
            "Check lock safety under real faults. Client JVMs take locks, write to a fenced resource with their"
                    + " fencing token and release, while a fault is injected again and again: kill -9 of a holder,"
                    + " SIGSTOP of a holder past its lease, its connections cut or black-holed, the server restarted"
                    + " or failed over. The naive locks the usual articles teach run beside Baton's, and the"
                    + " checker must find their violations.",
            "Embedded servers are started on free loopback ports. Exit code 0 when Baton kept every guarantee"
                    + " and every naive lock was caught, 1 otherwise."
        })
final class CheckCommand implements Callable<Integer> {
    static final List<String> DEFAULT_BACKENDS =
            List.of("postgres", "redis", "zookeeper", "naive-row", "naive-setnx", "naive-znode");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--backends",
            split = ",",
            description = "Targets to check (default: " + "postgres,redis,zookeeper and the three naive locks): "
                    + "${COMPLETION-CANDIDATES}, or all",
            completionCandidates = Targets.class)
    List<String> backends;

    @Option(
            names = "--faults",
            split = ",",
            description = "Faults to inject (default: every fault a target supports): kill, pause, cut, blackhole,"
                    + " restart, failover")
    List<String> faults;

    @Option(
            names = "--mixed",
            description = "One run per backend that injects its faults in turn, instead of one run per backend and"
                    + " fault")
    boolean mixed;

    @Option(
            names = "--duration",
            defaultValue = "6s",
            converter = DurationConverter.class,
            description = "Length of each run (default ${DEFAULT-VALUE})")
    Duration duration;

    @Option(
            names = "--lease",
            defaultValue = "1s",
            converter = DurationConverter.class,
            description = "Lease time of every hold; ZooKeeper's session timeout (default ${DEFAULT-VALUE})")
    Duration lease;

    @Option(names = "--clients", defaultValue = "4", description = "Client JVMs per run (default ${DEFAULT-VALUE})")
    int clients;

    @Option(
            names = "--seed",
            defaultValue = "1",
            description = "Seed of every random choice: locks, fault times, victims (default ${DEFAULT-VALUE})")
    long seed;

    @Option(
            names = "--report",
            defaultValue = "baton-check.html",
            description = "HTML report to write (default ${DEFAULT-VALUE})")
    Path report;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        CheckSettings settings;
        List<CheckSuite.PlannedRun> runs;
        try {
            settings = new CheckSettings(clients, duration, lease, Duration.ofMillis(20), 2, seed);
            runs = CheckSuite.plan(targets(), faultSet(), mixed, settings);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (runs.isEmpty()) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "no backend among " + targets() + " supports the faults " + faults);
        }
        err.printf(
                Locale.ROOT,
                "baton check: %d run%s of %s, %d clients, lease %s, seed %d; about %s%n",
                runs.size(),
                runs.size() == 1 ? "" : "s",
                CheckTable.millis(duration),
                clients,
                CheckTable.millis(lease),
                seed,
                minutes(CheckSuite.estimate(runs, settings)));
        err.flush();
        List<CheckRow> rows = CheckSuite.run(runs, settings, new LineProgress(err), true);
        String table = CheckTable.markdown(rows);
        out.println();
        out.print(table);
        out.flush();
        writeReport(rows, table, settings, err);
        boolean clean = rows.stream()
                .noneMatch(
                        r -> r.verdict() == CheckRow.Verdict.VIOLATION || r.verdict() == CheckRow.Verdict.NAIVE_MISSED);
        return clean ? 0 : 1;
    }

    private List<String> targets() {
        if (backends == null) {
            return DEFAULT_BACKENDS;
        }
        if (backends.contains("all")) {
            return CheckSuite.targets();
        }
        for (String backend : backends) {
            if (!CheckSuite.targets().contains(backend)) {
                throw new IllegalArgumentException(
                        "unknown backend '" + backend + "'; choose from " + String.join(", ", CheckSuite.targets()));
            }
        }
        return backends;
    }

    private Set<Fault> faultSet() {
        if (faults == null) {
            return null;
        }
        Set<Fault> set = EnumSet.noneOf(Fault.class);
        for (String fault : faults) {
            try {
                set.add(Fault.valueOf(fault.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown fault '" + fault + "'; choose from "
                        + EnumSet.allOf(Fault.class).stream().map(Fault::id).collect(Collectors.joining(", ")));
            }
        }
        return set;
    }

    private void writeReport(List<CheckRow> rows, String table, CheckSettings settings, PrintWriter err) {
        StringBuilder html = new StringBuilder("<!doctype html>\n<html><head><meta charset=\"utf-8\">"
                + "<title>baton check</title><style>body{font-family:sans-serif;margin:2em}"
                + "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
                + "td:first-child,td:nth-child(2),td:last-child{text-align:left}</style></head><body>\n");
        html.append("<h1>baton check, ")
                .append(LocalDate.now())
                .append("</h1>\n<p>")
                .append(HtmlReport.escape(String.format(
                        Locale.ROOT,
                        "%d clients per run, lease %s, %s per run, seed %d, %d cores.",
                        settings.clients(),
                        CheckTable.millis(settings.leaseTime()),
                        CheckTable.millis(settings.duration()),
                        settings.seed(),
                        Runtime.getRuntime().availableProcessors())))
                .append("</p>\n")
                .append(HtmlReport.markdownToHtml(table))
                .append("<h2>What the runs were</h2>\n<ul>\n");
        for (Iterator<CheckRow> it = rows.stream().iterator(); it.hasNext(); ) {
            CheckRow row = it.next();
            html.append("<li>")
                    .append(HtmlReport.escape(row.target() + ": " + row.description() + "; "
                            + row.faults().stream().map(Fault::description).collect(Collectors.joining(", then "))))
                    .append("</li>\n");
        }
        html.append("</ul>\n");
        for (CheckRow row : rows) {
            if (row.result().timeline() == null) {
                continue;
            }
            html.append("<h2>")
                    .append(HtmlReport.escape(row.target() + " under " + row.faultLabel()))
                    .append(
                            ": around the first overlap no fault explains (else the longest)</h2>\n<p>Each bar is a hold (colour: lock); red outline:"
                                    + " granted while another client held the same lock; red mark: a fault hit that client."
                                    + " Hover for tokens and times.</p>\n")
                    .append(TimelineSvg.svg(row.result().timeline()));
        }
        html.append("</body></html>\n");
        try {
            Files.writeString(report, html, StandardCharsets.UTF_8);
            err.println("Report: " + report.toAbsolutePath());
        } catch (IOException e) {
            err.println("baton check: cannot write the report " + report + ": " + e.getMessage());
        }
    }

    private static String minutes(Duration d) {
        return d.toMinutes() + " min " + d.toSecondsPart() + " s";
    }

    /** One line per run: which, and what the checker found. */
    private static final class LineProgress implements CheckSuite.Progress {
        private final PrintWriter err;

        LineProgress(PrintWriter err) {
            this.err = err;
        }

        @Override
        public void started(int index, int total, CheckSuite.PlannedRun run) {
            err.printf(
                    Locale.ROOT,
                    "[%d/%d] %s under %s ...%n",
                    index,
                    total,
                    run.target(),
                    run.faults().stream().map(Fault::id).collect(Collectors.joining("+")));
            err.flush();
        }

        @Override
        public void running(double fraction) {}

        @Override
        public void finished(CheckRow row) {
            err.printf(
                    Locale.ROOT,
                    "      %d holds, %d overlaps, %d stale caught, %d stale accepted: %s%n",
                    row.result().operations(),
                    row.result().overlaps(),
                    row.result().staleCaught(),
                    row.result().staleAccepted(),
                    row.verdict().label());
            err.flush();
        }
    }

    /** Completion candidates for --backends. */
    static final class Targets extends ArrayList<String> {
        Targets() {
            super(CheckSuite.targets());
        }
    }
}
