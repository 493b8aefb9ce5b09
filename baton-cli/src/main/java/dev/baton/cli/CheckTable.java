package dev.baton.cli;

import dev.baton.check.CheckResult;
import dev.baton.check.CheckRow;
import dev.baton.check.CheckSummary;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** The check report as a Markdown table: printed as it is, and turned into HTML for the report file. */
final class CheckTable {
    private CheckTable() {}

    static String markdown(List<CheckRow> rows) {
        return markdown(rows, false);
    }

    /** The rows, with a seed column after the fault's when {@code withSeeds} (a seed sweep). */
    static String markdown(List<CheckRow> rows, boolean withSeeds) {
        StringBuilder table = new StringBuilder("| backend | fault | " + (withSeeds ? "seed | " : "")
                + "faults | holds | availability | failed attempts | overlaps (under isolation) | longest overlap | stale writes caught"
                + " | stale writes accepted | stale writes before the next holder's | fresh writes refused | unreported losses | recovery max (p50)"
                + " | verdict |\n");
        table.append(withSeeds ? "|---|---|---:|---:|" : "|---|---|---:|");
        table.append("---:|".repeat(11)).append("---|\n");
        for (CheckRow row : rows) {
            CheckResult r = row.result();
            table.append("| ")
                    .append(row.target())
                    .append(" | ")
                    .append(row.faultLabel())
                    .append(" | ")
                    .append(withSeeds ? row.seed() + " | " : "")
                    .append(row.faultsInjected())
                    .append(" | ")
                    .append(r.operations())
                    .append(" | ")
                    .append(availability(row))
                    .append(" | ")
                    .append(r.failures())
                    .append(" | ")
                    .append(r.overlaps())
                    .append(" (")
                    .append(r.isolatedOverlaps())
                    .append(") | ")
                    .append(millis(r.longestOverlap()))
                    .append(" | ")
                    .append(r.staleCaught())
                    .append(" | ")
                    .append(r.staleAccepted())
                    .append(" | ")
                    .append(r.staleUnfenceable())
                    .append(" | ")
                    .append(r.freshRefused())
                    .append(" | ")
                    .append(r.unreportedLosses())
                    .append(" | ")
                    .append(recovery(r))
                    .append(" | ")
                    .append(verdict(row))
                    .append(" |\n");
        }
        return table.toString();
    }

    /**
     * The summary of a seed sweep, one row per backend: runs, violations, naive runs that found
     * nothing, and the worst run with what makes it so and how to run it again.
     */
    static String summary(List<CheckSummary> summaries) {
        StringBuilder table = new StringBuilder(
                "| backend | runs | violations | not found | worst run: fault, seed | its unexplained overlaps | its"
                        + " stale writes accepted | its unreported losses | its verdict |\n");
        table.append("|---|---:|---:|---:|---|---:|---:|---:|---|\n");
        for (CheckSummary s : summaries) {
            CheckRow worst = s.worst();
            CheckResult r = worst.result();
            table.append("| ")
                    .append(s.target())
                    .append(" | ")
                    .append(s.runs())
                    .append(" | ")
                    .append(s.violations())
                    .append(" | ")
                    .append(s.notFound())
                    .append(" | ")
                    .append(worst.faultLabel())
                    .append(", seed ")
                    .append(worst.seed())
                    .append(" | ")
                    .append(r.unexplainedOverlaps())
                    .append(" | ")
                    .append(r.staleAccepted())
                    .append(" | ")
                    .append(r.unreportedLosses())
                    .append(" | ")
                    .append(verdict(worst))
                    .append(" |\n");
        }
        return table.toString();
    }

    /** Grants per second against the same target without faults, as a percentage; - when not measured. */
    static String availability(CheckRow row) {
        return Double.isNaN(row.availability()) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * row.availability());
    }

    private static String recovery(CheckResult r) {
        if (r.recoveryMax() == null) {
            return r.neverRecovered() > 0 ? "never" : "-";
        }
        String text = millis(r.recoveryMax()) + " (" + millis(r.recoveryMedian()) + ")";
        return r.neverRecovered() > 0 ? text + ", " + r.neverRecovered() + " never" : text;
    }

    private static String verdict(CheckRow row) {
        List<String> found = row.violations();
        return found.isEmpty() ? row.verdict().label() : row.verdict().label() + ": " + String.join("; ", found);
    }

    static String millis(Duration d) {
        if (d == null) {
            return "-";
        }
        return d.toMillis() >= 10_000
                ? String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0)
                : d.toMillis() + " ms";
    }
}
