package dev.baton.bench;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Renders results as a Markdown table and computes ratios between subjects of one run. */
public final class ResultTable {
    private ResultTable() {}

    /**
     * How to read pairs/s beside the fairness columns; printed under the tables that show both.
     */
    public static final String FAIRNESS_NOTE = "Read pairs/s beside fairness: a lock that hands the grant"
            + " straight back to the client that released it (barging) shows high pairs/s with a low share to"
            + " another client, a skewed grant spread (min / max share of all grants; 12.5% each is even for 8"
            + " clients) and a long maximum wait, while its other clients starve. Fairness columns are for"
            + " contended rows (B8, C8, S8; in B8 each thread counts as a client); wait is from the acquire call"
            + " to its return.";

    /**
     * One row per subject and scenario. "pairs/s" is the median of the runs; "per run" lists every
     * run in the order they ran, so that a reader can see the spread, and compare subjects run by run
     * (the runs of all subjects take turns, so run i of each subject ran at about the same time). The
     * last columns before overlaps are the contended rows' {@link ScenarioResult.Fairness}; see
     * {@link #FAIRNESS_NOTE}.
     */
    public static String markdown(List<ScenarioResult> results) {
        StringBuilder out = new StringBuilder();
        out.append("| subject | scenario | pairs/s | per run | pair p50 µs | pair p99 µs | hand-off p50 µs"
                + " | hand-off p99 µs | client CPU µs/pair | server CPU µs/pair | to another client"
                + " | wait p99 µs | wait max µs | grants min / max per client | overlaps | errors |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (ScenarioResult r : results) {
            ScenarioResult.Fairness f = r.fairness();
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %,.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %d |%n",
                    r.subject(),
                    r.scenario(),
                    r.pairsPerSecond(),
                    perRun(r.runRates()),
                    number(r.pairP50Micros()),
                    number(r.pairP99Micros()),
                    number(r.handoffP50Micros()),
                    number(r.handoffP99Micros()),
                    number(r.clientCpuMicrosPerPair()),
                    number(r.serverCpuMicrosPerPair()),
                    percent(f.toAnotherClientPercent()),
                    number(f.waitP99Micros()),
                    number(f.waitMaxMicros()),
                    spread(f),
                    r.overlaps(),
                    r.errors()));
        }
        return out.toString();
    }

    /** {@code 97%}, {@code 3.4%}, {@code -}: a share, with a decimal below 10%. */
    public static String percent(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        return String.format(Locale.ROOT, value < 9.95 ? "%.1f%%" : "%.0f%%", value);
    }

    /** {@code 11.9% / 13.1%}: the smallest and largest share of the grants, or {@code -}. */
    public static String spread(ScenarioResult.Fairness fairness) {
        if (Double.isNaN(fairness.minSharePercent())) {
            return "-";
        }
        return String.format(Locale.ROOT, "%.1f%% / %.1f%%", fairness.minSharePercent(), fairness.maxSharePercent());
    }

    private static String perRun(List<Double> rates) {
        StringBuilder runs = new StringBuilder();
        for (double rate : rates) {
            if (runs.length() > 0) {
                runs.append(" / ");
            }
            runs.append(String.format(Locale.ROOT, "%,.0f", rate));
        }
        return runs.toString();
    }

    private static String number(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%,.0f", value);
    }

    /** The result of {@code subject} in {@code scenario}, if measured. */
    public static Optional<ScenarioResult> find(List<ScenarioResult> results, String subject, Scenario scenario) {
        return results.stream()
                .filter(r -> r.subject().equals(subject) && r.scenario() == scenario)
                .findFirst();
    }

    /** {@code numerator.pairsPerSecond / denominator.pairsPerSecond} for one scenario, if both ran. */
    public static Optional<Double> throughputRatio(
            List<ScenarioResult> results, String numerator, String denominator, Scenario scenario) {
        return find(results, numerator, scenario)
                .flatMap(n -> find(results, denominator, scenario).map(d -> n.pairsPerSecond() / d.pairsPerSecond()));
    }

    /** Ratio of hand-off medians for one scenario, if both ran. */
    public static Optional<Double> handoffRatio(
            List<ScenarioResult> results, String numerator, String denominator, Scenario scenario) {
        return find(results, numerator, scenario).flatMap(n -> find(results, denominator, scenario)
                .map(d -> n.handoffP50Micros() / d.handoffP50Micros()));
    }
}
