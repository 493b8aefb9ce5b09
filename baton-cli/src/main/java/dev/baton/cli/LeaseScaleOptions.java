package dev.baton.cli;

import dev.baton.bench.DistinctNames;
import dev.baton.bench.LeaseScaleBench;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * Scenario M of {@code baton bench}: one client holds many leases through a link that adds latency
 * ({@link LeaseScaleBench}), on embedded Redis (Baton and Redisson), PostgreSQL (Baton's table
 * strategy) and ZooKeeper (Baton); with {@code --names}, the client's heap after many distinct names. Long (three lease times per row), so it runs only when {@code --scenarios} names it.
 */
final class LeaseScaleOptions {
    private static final int PERIODS = 3;

    @Option(
            names = "--leases",
            split = ",",
            defaultValue = "1000,10000",
            description = "Scenario M: leases one client holds, one row each (default ${DEFAULT-VALUE})")
    List<Integer> leases;

    @Option(
            names = "--latency",
            defaultValue = "1ms",
            converter = DurationConverter.class,
            description = "Scenario M: round-trip latency the proxy adds (default ${DEFAULT-VALUE})")
    Duration latency;

    @Option(
            names = "--lease",
            defaultValue = "30s",
            converter = DurationConverter.class,
            description = "Scenarios M and H: lease time; each row of M holds the leases for 3 of them, of H for one"
                    + " (default ${DEFAULT-VALUE})")
    Duration lease;

    @Option(
            names = "--names",
            defaultValue = "0",
            description = "Scenario M: also run this many distinct names through one client, each taken and released"
                    + " once, and report its heap before and after (default: not run)")
    int names;

    /**
     * Runs scenario M on the backends of {@code selected} it knows (all of them when null) and
     * prints its table to {@code out}, progress to {@code err}.
     */
    int run(List<String> selected, PrintWriter out, PrintWriter err) {
        List<String> backends = selected == null
                ? LeaseScaleBench.BACKENDS
                : selected.stream().filter(LeaseScaleBench.BACKENDS::contains).toList();
        if (backends.isEmpty() || leases.stream().anyMatch(count -> count < 0) || lease.isZero() || names < 0) {
            err.println("baton bench: scenario M needs a backend of " + LeaseScaleBench.BACKENDS
                    + ", --leases and --names of at least 0 and a positive --lease");
            return ExitCodes.USAGE;
        }
        LeaseScaleBench.Settings settings = new LeaseScaleBench.Settings(backends, leases, latency, lease, PERIODS);
        List<String> parts = new ArrayList<>();
        if (!settings.counts().isEmpty()) {
            parts.add(settings.counts() + " leases, " + PERIODS + " x " + BenchPlan.option(lease) + " per row");
        }
        if (names > 0) {
            parts.add(String.format(Locale.ROOT, "%,d distinct names", names));
        }
        err.println("baton bench: scenario M on " + String.join(", ", backends) + ": " + String.join("; ", parts));
        err.flush();
        List<LeaseScaleBench.Row> rows;
        List<DistinctNames.Result> distinct;
        Consumer<String> progress = line -> {
            err.println("baton bench: " + line);
            err.flush();
        };
        try {
            rows = LeaseScaleBench.run(settings, progress);
            distinct = names > 0 ? DistinctNames.run(backends, names, progress) : List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("baton bench: scenario M interrupted");
            return ExitCodes.SOFTWARE;
        } catch (Exception e) {
            err.println("baton bench: scenario M failed: " + BenchCommand.rootMessage(e));
            return ExitCodes.SOFTWARE;
        }
        if (!rows.isEmpty()) {
            out.println();
            out.print(LeaseScaleBench.table(settings, rows));
        }
        if (!distinct.isEmpty()) {
            out.println();
            out.print(DistinctNames.table(distinct));
        }
        out.flush();
        return 0;
    }
}
