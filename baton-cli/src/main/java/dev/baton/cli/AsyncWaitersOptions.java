package dev.baton.cli;

import dev.baton.bench.AsyncWaitersBench;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * Scenario W ({@code async-waiters}) of {@code baton bench}: many concurrent waiters on one client
 * over a few names, through the asynchronous and the blocking API, on embedded Redis, ZooKeeper, etcd
 * and PostgreSQL ({@link AsyncWaitersBench}). It runs only when {@code --scenarios} names it.
 */
final class AsyncWaitersOptions {
    @Option(
            names = "--waiters",
            defaultValue = "10000",
            description = "Scenario W: concurrent waiters on one client (default ${DEFAULT-VALUE})")
    int waiters;

    @Option(
            names = "--waiter-names",
            defaultValue = "100",
            description = "Scenario W: lock names the waiters share (default ${DEFAULT-VALUE})")
    int names;

    /**
     * Runs scenario W on the backends of {@code selected} it knows (all of them when null) and prints
     * its table to {@code out}, progress to {@code err}.
     */
    int run(List<String> selected, PrintWriter out, PrintWriter err) {
        List<String> backends = selected == null
                ? AsyncWaitersBench.BACKENDS
                : selected.stream().filter(AsyncWaitersBench.BACKENDS::contains).toList();
        if (backends.isEmpty() || names < 1 || waiters < names) {
            err.println("baton bench: scenario W needs a backend of " + AsyncWaitersBench.BACKENDS
                    + ", --waiter-names of at least 1 and --waiters of at least --waiter-names");
            return ExitCodes.USAGE;
        }
        AsyncWaitersBench.Settings settings =
                new AsyncWaitersBench.Settings(backends, waiters, names, Duration.ofMinutes(10));
        err.println(String.format(
                Locale.ROOT,
                "baton bench: scenario W on %s: %,d waiters over %,d names, async then blocking",
                String.join(", ", backends),
                waiters,
                names));
        err.flush();
        Consumer<String> progress = line -> {
            err.println("baton bench: " + line);
            err.flush();
        };
        List<AsyncWaitersBench.Row> rows;
        try {
            rows = AsyncWaitersBench.run(settings, progress);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("baton bench: scenario W interrupted");
            return ExitCodes.SOFTWARE;
        } catch (Exception e) {
            err.println("baton bench: scenario W failed: " + BenchCommand.rootMessage(e));
            return ExitCodes.SOFTWARE;
        }
        out.println();
        out.print(AsyncWaitersBench.table(settings, rows));
        out.flush();
        long wrong = rows.stream()
                .mapToLong(row -> row.overlaps() + row.notGrantedOnce())
                .sum();
        if (wrong > 0) {
            err.println("baton bench: SAFETY VIOLATION: scenario W saw overlapping holders or waiters not granted"
                    + " exactly once");
            return ExitCodes.SOFTWARE;
        }
        return 0;
    }
}
