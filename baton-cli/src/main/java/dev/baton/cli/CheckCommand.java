package dev.baton.cli;

import dev.baton.check.CheckRow;
import dev.baton.check.CheckSettings;
import dev.baton.check.CheckSuite;
import dev.baton.check.CheckSummary;
import dev.baton.check.Fault;
import dev.baton.check.PeerTargets;
import dev.baton.servers.EtcdServer;
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
    static final List<String> DEFAULT_BACKENDS = List.of(
            "postgres", "redis", "zookeeper", "etcd", "etcd-cluster", "naive-row", "naive-setnx", "naive-znode");
    /** Targets the default run leaves out, and why. */
    static final String LEFT_OUT = "azure (Azure's 15 s minimum lease stretches each run to about 2 min)";
    /** The most seeds one sweep takes. */
    static final int MAX_SEEDS = 10_000;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--backends",
            split = ",",
            description = "Targets to check (default: postgres,redis,zookeeper,etcd,etcd-cluster and the three naive"
                    + " locks; the others, such as azure, redis-sentinel and redis-cluster, only when named): "
                    + "${COMPLETION-CANDIDATES}, or all",
            completionCandidates = Targets.class)
    List<String> backends;

    @Option(
            names = "--peers",
            description = "Add the peer libraries of the chosen backends, on the same servers under the same faults:"
                    + " redis: redisson, redisson-fenced; redis-sentinel: redisson-sentinel, redisson-fenced-sentinel;"
                    + " zookeeper: curator; postgres: shedlock-jdbc; etcd: jetcd. Their rows report what broke, not"
                    + " as a violation of Baton's (nor in the exit code)")
    boolean peers;

    @Option(
            names = "--faults",
            split = ",",
            description = "Faults to inject (default: every fault a target supports): kill, pause, cut, blackhole,"
                    + " restart, failover, leader-kill")
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
            names = "--seeds",
            description = "A seed sweep: every run once per seed, then one summary table per backend (runs,"
                    + " violations, the worst run with its seed and fault). A range 1-20, a list 7,11,31, or both"
                    + " (1-5,9); not with --seed")
    String seeds;

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
        List<Long> seedList;
        try {
            if (seeds != null && spec.commandLine().getParseResult().hasMatchedOption("--seed")) {
                throw new IllegalArgumentException("--seed and --seeds exclude each other: one seed, or a sweep");
            }
            seedList = seeds == null ? List.of(seed) : parseSeeds(seeds);
            settings = new CheckSettings(clients, duration, lease, Duration.ofMillis(20), 2, seedList.get(0));
            runs = CheckSuite.plan(targets(), faultSet(), mixed, settings, seedList);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (runs.isEmpty()) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "no backend among " + targets() + " supports the faults " + faults);
        }
        boolean sweep = seeds != null;
        err.printf(
                Locale.ROOT,
                "baton check: %d run%s of %s, %d clients, lease %s, %s; about %s%n",
                runs.size(),
                runs.size() == 1 ? "" : "s",
                CheckTable.millis(duration),
                clients,
                CheckTable.millis(lease),
                sweep
                        ? seedList.size() + (seedList.size() == 1 ? " seed (" : " seeds (") + seeds + ")"
                        : "seed " + seed,
                minutes(CheckSuite.estimate(runs, settings)));
        for (String target :
                runs.stream().map(CheckSuite.PlannedRun::target).distinct().toList()) {
            CheckSettings raised = CheckSuite.settingsFor(
                    runs.stream()
                            .filter(r -> r.target().equals(target))
                            .findFirst()
                            .orElseThrow(),
                    settings);
            if (!raised.leaseTime().equals(settings.leaseTime())) {
                err.printf(
                        Locale.ROOT,
                        "  %s: its minimum lease is %s, so its runs use that lease and last %s%n",
                        target,
                        CheckTable.millis(raised.leaseTime()),
                        CheckTable.millis(raised.duration()));
            }
        }
        if (backends == null) {
            err.println("  left out by default: " + LEFT_OUT + "; add it with --backends "
                    + String.join(",", defaultBackends()) + ",azure (or --backends all)");
            if (!EtcdServer.installed()) {
                err.println("  left out: etcd and etcd-cluster, as etcd is not installed here (as root: "
                        + EtcdServer.INSTALL_COMMAND + ")");
            }
        }
        err.flush();
        List<CheckRow> rows;
        try {
            rows = CheckSuite.run(runs, settings, new LineProgress(err, sweep), true);
        } finally {
            CheckSuite.closeIdleClients();
        }
        String table = CheckTable.markdown(rows, sweep);
        List<CheckSummary> summaries = CheckSummary.of(rows);
        String summary = CheckTable.summary(summaries);
        out.println();
        out.print(sweep ? summary : table);
        out.flush();
        writeReport(rows, sweep ? summary + "\n" + table : table, settings, err);
        return summaries.stream().allMatch(CheckSummary::clean) ? 0 : 1;
    }

    /** The default targets: without etcd where it is not installed (the run says so). */
    private static List<String> defaultBackends() {
        return EtcdServer.installed()
                ? DEFAULT_BACKENDS
                : DEFAULT_BACKENDS.stream().filter(t -> !t.startsWith("etcd")).toList();
    }

    /**
     * {@return the seeds of {@code --seeds}: ranges {@code a-b} and single seeds, comma-separated, in
     * the order given, each once}
     *
     * @throws IllegalArgumentException for anything else, or more than {@link #MAX_SEEDS} seeds
     */
    static List<Long> parseSeeds(String text) {
        java.util.LinkedHashSet<Long> seen = new java.util.LinkedHashSet<>();
        for (String part : text.split(",")) {
            String p = part.trim();
            try {
                int dash = p.indexOf('-', 1); // a leading '-' is a negative seed
                long from = Long.parseLong(dash < 0 ? p : p.substring(0, dash).trim());
                long to = dash < 0 ? from : Long.parseLong(p.substring(dash + 1).trim());
                if (to < from) {
                    throw new IllegalArgumentException("--seeds: the range '" + p + "' runs backwards");
                }
                if (to - from >= MAX_SEEDS || seen.size() + (to - from) >= MAX_SEEDS) {
                    throw new IllegalArgumentException("--seeds: more than " + MAX_SEEDS + " seeds in '" + text + "'");
                }
                for (long s = from; s <= to; s++) {
                    seen.add(s);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "--seeds: '" + p + "' is neither a seed nor a range such as 1-20 (give e.g. 1-20 or 7,11,31)");
            }
        }
        return List.copyOf(seen);
    }

    private List<String> targets() {
        List<String> chosen = chosenTargets();
        return peers ? PeerTargets.withPeers(chosen) : chosen;
    }

    private List<String> chosenTargets() {
        if (backends == null) {
            return defaultBackends();
        }
        if (backends.contains("all")) {
            // the peers are opt-in: --peers, or their own ids
            return CheckSuite.targets().stream()
                    .filter(t -> !PeerTargets.isPeer(t))
                    .toList();
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
                set.add(Fault.of(fault));
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
                        "%d clients per run, lease %s, %s per run, %s, %d cores.",
                        settings.clients(),
                        CheckTable.millis(settings.leaseTime()),
                        CheckTable.millis(settings.duration()),
                        seeds == null ? "seed " + settings.seed() : "seeds " + seeds,
                        Runtime.getRuntime().availableProcessors())))
                .append("</p>\n")
                .append(HtmlReport.markdownToHtml(table))
                .append("<h2>What the runs were</h2>\n<ul>\n");
        for (Iterator<CheckRow> it = rows.stream().iterator(); it.hasNext(); ) {
            CheckRow row = it.next();
            html.append("<li>")
                    .append(HtmlReport.escape(row.target() + ": " + row.description() + "; "
                            + row.faults().stream().map(Fault::description).collect(Collectors.joining(", then "))
                            + " (seed " + row.seed() + ")"))
                    .append("</li>\n");
        }
        html.append("</ul>\n");
        for (CheckRow row : rows) {
            if (row.result().timeline() == null) {
                continue;
            }
            html.append("<h2>")
                    .append(HtmlReport.escape(row.target() + " under " + row.faultLabel() + ", seed " + row.seed()))
                    .append(
                            ": around the first overlap no fault explains (else the longest)</h2>\n<p>Each bar is a hold (colour: lock); red outline:"
                                    + " granted while another client held the same lock; red mark: a fault hit that client; grey mark: the client was told it lost a lock, or an attempt failed."
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
        private final boolean sweep;

        LineProgress(PrintWriter err, boolean sweep) {
            this.err = err;
            this.sweep = sweep;
        }

        @Override
        public void started(int index, int total, CheckSuite.PlannedRun run) {
            err.printf(
                    Locale.ROOT,
                    "[%d/%d] %s under %s%s ...%n",
                    index,
                    total,
                    run.target(),
                    run.faults().stream().map(Fault::id).collect(Collectors.joining("+")),
                    sweep ? ", seed " + run.seed() : "");
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
