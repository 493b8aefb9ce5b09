package dev.baton.cli;

import dev.baton.bench.HeldLeaseHeap;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * Scenario H of {@code baton bench}: heap per held lease ({@link HeldLeaseHeap}): one client holds
 * N leases for a lease time ({@code --lease}, shared with scenario M), on embedded Redis, ZooKeeper, etcd, PostgreSQL and Azurite, beside
 * the peers that hold locks on the same servers. Long (a full acquisition of every lease per row),
 * so it runs only when {@code --scenarios} names it.
 */
final class HeldHeapOptions {

    @Option(
            names = "--held-leases",
            split = ",",
            defaultValue = "10000,100000",
            description = "Scenario H: leases one client holds, one row each (default ${DEFAULT-VALUE})")
    List<Integer> leases;

    /**
     * Runs scenario H on the backends of {@code selected} it knows (all of them when null) and
     * prints its table to {@code out}, progress to {@code err}.
     */
    int run(List<String> selected, Duration lease, PrintWriter out, PrintWriter err) {
        List<String> backends = selected == null
                ? HeldLeaseHeap.BACKENDS
                : selected.stream().filter(HeldLeaseHeap.BACKENDS::contains).toList();
        if (backends.isEmpty() || leases.isEmpty() || leases.stream().anyMatch(count -> count < 1) || lease.isZero()) {
            err.println("baton bench: scenario H needs a backend of " + HeldLeaseHeap.BACKENDS
                    + ", --held-leases of at least 1 and a positive --lease");
            return ExitCodes.USAGE;
        }
        err.println("baton bench: scenario H on " + String.join(", ", backends) + ": " + leases
                + " held leases per row, each held for its lease time " + BenchPlan.option(lease));
        err.flush();
        Consumer<String> progress = line -> {
            err.println("baton bench: " + line);
            err.flush();
        };
        List<HeldLeaseHeap.Row> rows;
        try {
            rows = HeldLeaseHeap.run(backends, leases, true, lease, progress);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("baton bench: scenario H interrupted");
            return ExitCodes.SOFTWARE;
        } catch (Exception e) {
            err.println("baton bench: scenario H failed: " + BenchCommand.rootMessage(e));
            return ExitCodes.SOFTWARE;
        }
        out.println();
        out.print(HeldLeaseHeap.table(rows, 6));
        out.flush();
        return 0;
    }
}
