package dev.baton.cli;

import dev.baton.bench.LeaseScaleBench;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Scenario M of {@code baton bench}: one client holds many leases through a link that adds latency
 * ({@link LeaseScaleBench}), on embedded Redis (Baton and Redisson) and PostgreSQL (Baton's table
 * strategy). Long (three lease times per row), so it runs only when {@code --scenarios} names it.
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
            description = "Scenario M: lease time; each row holds the leases for 3 of them (default ${DEFAULT-VALUE})")
    Duration lease;

    /**
     * Runs scenario M on the backends of {@code selected} it knows (all of them when null) and
     * prints its table to {@code out}, progress to {@code err}.
     */
    int run(List<String> selected, PrintWriter out, PrintWriter err) {
        List<String> backends = selected == null
                ? LeaseScaleBench.BACKENDS
                : selected.stream().filter(LeaseScaleBench.BACKENDS::contains).toList();
        if (backends.isEmpty() || leases.stream().anyMatch(count -> count < 1) || lease.isZero()) {
            err.println("baton bench: scenario M needs a backend of " + LeaseScaleBench.BACKENDS
                    + ", --leases of at least 1 and a positive --lease");
            return ExitCodes.USAGE;
        }
        LeaseScaleBench.Settings settings = new LeaseScaleBench.Settings(backends, leases, latency, lease, PERIODS);
        err.println("baton bench: scenario M on " + String.join(", ", backends) + ": " + leases + " leases, " + PERIODS
                + " x " + BenchPlan.option(lease) + " per row");
        err.flush();
        List<LeaseScaleBench.Row> rows;
        try {
            rows = LeaseScaleBench.run(settings, line -> {
                err.println("baton bench: " + line);
                err.flush();
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("baton bench: scenario M interrupted");
            return ExitCodes.SOFTWARE;
        } catch (Exception e) {
            err.println("baton bench: scenario M failed: " + BenchCommand.rootMessage(e));
            return ExitCodes.SOFTWARE;
        }
        out.println();
        out.print(LeaseScaleBench.table(settings, rows));
        out.flush();
        return 0;
    }
}
