package dev.baton.bench;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Renders results as a Markdown table and computes ratios between subjects of one run. */
public final class ResultTable {
    private ResultTable() {}

    /**
     * One row per subject and scenario. "pairs/s" is the median of the runs; "per run" lists every
     * run in the order they ran, so that a reader can see the spread, and compare subjects run by run
     * (the runs of all subjects take turns, so run i of each subject ran at about the same time).
     */
    public static String markdown(List<ScenarioResult> results) {
        StringBuilder out = new StringBuilder();
        out.append("| subject | scenario | pairs/s | per run | pair p50 µs | pair p99 µs | hand-off p50 µs"
                + " | hand-off p99 µs | client CPU µs/pair | server CPU µs/pair | overlaps | errors |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (ScenarioResult r : results) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %,.0f | %s | %s | %s | %s | %s | %s | %s | %d | %d |%n",
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
                    r.overlaps(),
                    r.errors()));
        }
        return out.toString();
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
