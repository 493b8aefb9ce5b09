package dev.baton.cli;

import dev.baton.bench.BenchSettings;
import dev.baton.bench.Scenario;
import dev.baton.bench.ScenarioResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The HTML report of {@code baton bench}: one self-contained file (charts are PNG images inlined as
 * data URIs, rendered with XChart), so it opens in a browser without a network.
 */
final class HtmlReport {
    private HtmlReport() {}

    static void write(Path file, List<BackendOutcome> outcomes, BenchSettings settings) throws IOException {
        List<ScenarioResult> all = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (BackendOutcome outcome : outcomes) {
            for (ScenarioResult result : outcome.results()) {
                all.add(result);
                String label = outcome.backend() + " / " + result.subject();
                if (!labels.contains(label)) {
                    labels.add(label);
                }
            }
        }
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Baton bench</title>\n")
                .append(
                        "<style>body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse}")
                .append("td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child,td:nth-child(2)")
                .append("{text-align:left}img{max-width:100%}</style></head><body>\n")
                .append("<h1>Baton bench</h1>\n<p>")
                .append(escape(String.format(
                        Locale.ROOT,
                        "%s; %d cores; %s %s; Java %s; %d run(s) of %s after a %s warm-up per row; %d threads%s",
                        ZonedDateTime.now().format(DateTimeFormatter.RFC_1123_DATE_TIME),
                        Runtime.getRuntime().availableProcessors(),
                        System.getProperty("os.name"),
                        System.getProperty("os.arch"),
                        System.getProperty("java.version"),
                        settings.runs(),
                        BenchPlan.option(settings.run()),
                        BenchPlan.option(settings.warmup()),
                        settings.threads(),
                        settings.hold().isZero()
                                ? ""
                                : "; each holder keeps the lock " + settings.hold() + " before releasing")))
                .append("</p>\n");
        html.append("<h2>Summary</h2>\n").append(markdownToHtml(SummaryTable.markdown(outcomes, settings.threads())));
        if (!all.isEmpty()) {
            html.append("<h2>Throughput</h2>\n")
                    .append(image(throughputChart(outcomes, labels)))
                    .append("<h2>Hand-off latency (contended rows)</h2>\n")
                    .append(image(handoffChart(outcomes, labels)));
        }
        String fairness = fairnessTable(outcomes);
        if (fairness.lines().count() > 2) {
            html.append("<h2>Fairness (contended rows)</h2>\n")
                    .append(markdownToHtml(fairness))
                    .append("<p>")
                    .append(escape(dev.baton.bench.ResultTable.FAIRNESS_NOTE))
                    .append(" To another client: of the grants that followed a release, the share that went to"
                            + " another client than the one that released last (for a semaphore, the last release of"
                            + " any permit). Redisson's RSemaphore has no lease: a holder that crashes loses its"
                            + " permit for good.</p>\n");
        }
        html.append("<h2>All rows</h2>\n").append(markdownToHtml(dev.baton.bench.ResultTable.markdown(all)));
        html.append("<p>pairs/s: acquire+release pairs per second, median of the runs (per run: each run, in the order"
                        + " they ran). Hand-off: from the holder's"
                        + " release() call to the next holder's acquire returning. Overlaps: critical sections that"
                        + " saw more holders inside than allowed: one for a lock, the permits for a semaphore (must be"
                        + " 0).</p>\n")
                .append("</body></html>\n");
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, html.toString(), StandardCharsets.UTF_8);
    }

    /** The contended rows of every backend (B8, C8, S8) with their fairness figures, as Markdown. */
    static String fairnessTable(List<BackendOutcome> outcomes) {
        StringBuilder out =
                new StringBuilder("| backend | subject | scenario | pairs/s | to another client | wait p99 ms"
                        + " | wait max ms | grants min / max per client |\n|---|---|---|---:|---:|---:|---:|---:|\n");
        for (BackendOutcome outcome : outcomes) {
            for (ScenarioResult r : outcome.results()) {
                ScenarioResult.Fairness f = r.fairness();
                if (!r.scenario().contended() || !f.measured()) {
                    continue;
                }
                out.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %s | %,.0f | %s | %,.2f | %,.2f | %s |%n",
                        outcome.backend(),
                        r.subject(),
                        r.scenario(),
                        r.pairsPerSecond(),
                        dev.baton.bench.ResultTable.percent(f.toAnotherClientPercent()),
                        f.waitP99Micros() / 1000,
                        f.waitMaxMicros() / 1000,
                        dev.baton.bench.ResultTable.spread(f)));
            }
        }
        return out.toString();
    }

    private static CategoryChart throughputChart(List<BackendOutcome> outcomes, List<String> labels) {
        CategoryChart chart = new CategoryChartBuilder()
                .width(1100)
                .height(500)
                .title("Acquire+release pairs per second")
                .yAxisTitle("pairs/s")
                .build();
        style(chart);
        for (Scenario scenario : Scenario.values()) {
            List<Double> values = new ArrayList<>();
            for (String label : labels) {
                values.add(value(outcomes, label, scenario, ScenarioResult::pairsPerSecond));
            }
            if (values.stream().anyMatch(v -> v > 0)) {
                chart.addSeries(scenario + " " + scenario.describe(), labels, values);
            }
        }
        return chart;
    }

    private static CategoryChart handoffChart(List<BackendOutcome> outcomes, List<String> labels) {
        CategoryChart chart = new CategoryChartBuilder()
                .width(1100)
                .height(500)
                .title("Hand-off latency, release() to next acquire (ms)")
                .yAxisTitle("ms")
                .build();
        style(chart);
        for (Scenario scenario : List.of(Scenario.B8, Scenario.C8)) {
            List<Double> p50 = new ArrayList<>();
            List<Double> p99 = new ArrayList<>();
            for (String label : labels) {
                p50.add(value(outcomes, label, scenario, r -> r.handoffP50Micros() / 1000));
                p99.add(value(outcomes, label, scenario, r -> r.handoffP99Micros() / 1000));
            }
            if (p50.stream().anyMatch(v -> v > 0)) {
                chart.addSeries(scenario + " p50", labels, p50);
                chart.addSeries(scenario + " p99", labels, p99);
            }
        }
        if (chart.getSeriesMap().isEmpty()) {
            chart.addSeries("no contended rows", List.of("-"), List.of(0.0));
        }
        return chart;
    }

    private static void style(CategoryChart chart) {
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setXAxisLabelRotation(20);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    }

    private static double value(
            List<BackendOutcome> outcomes,
            String label,
            Scenario scenario,
            java.util.function.ToDoubleFunction<ScenarioResult> metric) {
        for (BackendOutcome outcome : outcomes) {
            for (ScenarioResult result : outcome.results()) {
                if ((outcome.backend() + " / " + result.subject()).equals(label) && result.scenario() == scenario) {
                    double value = metric.applyAsDouble(result);
                    return Double.isNaN(value) ? 0 : value;
                }
            }
        }
        return 0;
    }

    private static String image(CategoryChart chart) throws IOException {
        byte[] png = BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG);
        return "<p><img alt=\"" + escape(chart.getTitle()) + "\" src=\"data:image/png;base64,"
                + Base64.getEncoder().encodeToString(png) + "\"></p>\n";
    }

    /** The Markdown tables this project prints, as an HTML table. */
    static String markdownToHtml(String markdown) {
        StringBuilder html = new StringBuilder("<table>\n");
        List<String> lines = markdown.lines().filter(l -> l.startsWith("|")).toList();
        for (int i = 0; i < lines.size(); i++) {
            if (i == 1) {
                continue; // the |---| separator
            }
            String[] cells =
                    lines.get(i).substring(1, lines.get(i).length() - 1).split("\\|", -1);
            String tag = i == 0 ? "th" : "td";
            // A row with a name and a sentence only (a skipped backend and why): the sentence gets one
            // wide cell rather than stretching its column for every other row.
            boolean sentence = cells.length > 2 && filledCells(cells) == 2;
            int shown = sentence ? 2 : cells.length;
            html.append("<tr>");
            for (int c = 0; c < shown; c++) {
                html.append('<').append(tag);
                if (sentence && c == 1) {
                    html.append(" colspan=\"").append(cells.length - 1).append("\" style=\"text-align:left\"");
                }
                html.append('>')
                        .append(escape(cells[c].trim()))
                        .append("</")
                        .append(tag)
                        .append('>');
            }
            html.append("</tr>\n");
        }
        return html.append("</table>\n").toString();
    }

    /** The cells up to the last one that is not empty. */
    private static int filledCells(String[] cells) {
        int filled = cells.length;
        while (filled > 1 && cells[filled - 1].isBlank()) {
            filled--;
        }
        return filled;
    }

    static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
