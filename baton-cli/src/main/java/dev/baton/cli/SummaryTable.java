package dev.baton.cli;

import dev.baton.bench.ResultTable;
import dev.baton.bench.Scenario;
import dev.baton.bench.ScenarioResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The summary table of {@code baton bench}, printed at the end of a run and at the top of its report. */
final class SummaryTable {
    private SummaryTable() {}

    /** CPU per pair of a row: the bench's JVM, plus the server processes where they were seen. */
    private static String cpu(Optional<ScenarioResult> row) {
        return row.filter(r -> !Double.isNaN(r.clientCpuMicrosPerPair()))
                .map(r -> String.format(Locale.ROOT, "%,.0f", r.clientCpuMicrosPerPair())
                        + (Double.isNaN(r.serverCpuMicrosPerPair())
                                ? ""
                                : String.format(Locale.ROOT, "+%,.0f", r.serverCpuMicrosPerPair())))
                .orElse("-");
    }

    /**
     * The one table: one row per subject of each backend, with the C8 row's fairness beside its
     * pairs/s, and the semaphore row's (S8) figures when it ran. A peer whose semaphore is a
     * primitive of its own (Redisson's RSemaphore) has a line of its own with the S8 figures only.
     */
    static String markdown(List<BackendOutcome> outcomes, int threads) {
        boolean semaphores =
                outcomes.stream().flatMap(o -> o.results().stream()).anyMatch(r -> r.scenario() == Scenario.S8);
        List<String> header = new ArrayList<>(List.of(
                "backend",
                "strategy",
                "uncontended pairs/s (A" + threads + ")",
                "contended pairs/s (C" + threads + ")",
                "hand-off p50 / p99 ms (C" + threads + ")",
                "to another client (C" + threads + ")",
                "wait p99 / max ms (C" + threads + ")",
                "grants min / max per client (C" + threads + ")"));
        if (semaphores) {
            header.add("semaphore pairs/s (S" + threads + ", " + Scenario.S8.permits(threads) + " permits)");
            header.add("to another client, wait max ms (S" + threads + ")");
        }
        header.addAll(List.of(
                "CPU µs per pair, client+server (A" + threads + " / C" + threads + ")",
                "recovery after holder killed",
                "consistency",
                "waiters notified by"));
        StringBuilder out = new StringBuilder();
        out.append("| ").append(String.join(" | ", header)).append(" |\n|");
        for (int c = 0; c < header.size(); c++) {
            out.append(c < 2 || c >= header.size() - 2 ? "---|" : "---:|");
        }
        out.append('\n');
        for (BackendOutcome outcome : outcomes) {
            if (outcome.skipped() != null) {
                out.append("| ")
                        .append(outcome.backend())
                        .append(" | skipped: ")
                        .append(outcome.skipped().replace('|', '/'))
                        .append(" |")
                        .append(" |".repeat(header.size() - 2))
                        .append('\n');
                continue;
            }
            List<String> subjects = outcome.results().stream()
                    .map(ScenarioResult::subject)
                    .distinct()
                    .toList();
            for (String subject : subjects) {
                Optional<ScenarioResult> uncontended = ResultTable.find(outcome.results(), subject, Scenario.A8);
                Optional<ScenarioResult> contended = ResultTable.find(outcome.results(), subject, Scenario.C8);
                Optional<ScenarioResult> semaphore = ResultTable.find(outcome.results(), subject, Scenario.S8);
                List<String> cells = new ArrayList<>(List.of(
                        outcome.backend(),
                        subject,
                        uncontended.map(r -> rate(r)).orElse("-"),
                        contended.map(r -> rate(r)).orElse("-"),
                        contended
                                .map(r -> millis(r.handoffP50Micros()) + " / " + millis(r.handoffP99Micros()))
                                .orElse("-"),
                        contended
                                .map(r -> ResultTable.percent(r.fairness().toAnotherClientPercent()))
                                .orElse("-"),
                        contended
                                .map(r -> millis(r.fairness().waitP99Micros()) + " / "
                                        + millis(r.fairness().waitMaxMicros()))
                                .orElse("-"),
                        contended.map(r -> ResultTable.spread(r.fairness())).orElse("-")));
                if (semaphores) {
                    cells.add(semaphore.map(r -> rate(r)).orElse("-"));
                    cells.add(semaphore
                            .map(r -> ResultTable.percent(r.fairness().toAnotherClientPercent()) + ", "
                                    + millis(r.fairness().waitMaxMicros()))
                            .orElse("-"));
                }
                cells.addAll(List.of(
                        cpu(uncontended) + " / " + cpu(contended),
                        outcome.recovery().getOrDefault(subject, "-"),
                        subject.startsWith("baton") ? outcome.consistency() : "",
                        subject.startsWith("baton") ? outcome.waiters() : ""));
                out.append("| ").append(String.join(" | ", cells)).append(" |\n");
            }
        }
        return out.toString();
    }

    private static String rate(ScenarioResult result) {
        return String.format(Locale.ROOT, "%,.0f", result.pairsPerSecond());
    }

    /** Microseconds as milliseconds with two decimals, or {@code -}. */
    private static String millis(double micros) {
        return Double.isNaN(micros) ? "-" : String.format(Locale.ROOT, "%,.2f", micros / 1000);
    }
}
