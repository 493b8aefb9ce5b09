package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.bench.Scenario;
import dev.baton.bench.ScenarioResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The summary table of {@code baton bench}: a skipped backend is one readable line with its reason;
 * the contended row's fairness sits beside its pairs/s; the semaphore row's columns appear when it ran.
 */
class SummaryTableTest {
    static final String REASON = "mariadbd is not installed; install Debian's package with 'apt-get install -y"
            + " mariadb-server' (see .ci/run), or set BATON_MARIADB_URL to an external server";

    private static ScenarioResult row(String subject, Scenario scenario) {
        ScenarioResult.Fairness fairness = scenario.contended()
                ? new ScenarioResult.Fairness(96.4, 1_250, 48_000, 11.2, 14.05)
                : ScenarioResult.Fairness.NOT_MEASURED;
        return new ScenarioResult(
                subject, scenario, 1000, List.of(1000.0), 10, 20, 30, 40, 0, 0, 250, Double.NaN, fairness);
    }

    private final List<BackendOutcome> outcomes = List.of(
            new BackendOutcome(
                    "h2",
                    null,
                    List.of(row("baton table", Scenario.A8), row("baton table", Scenario.C8)),
                    Map.of("baton table", "2.00 s"),
                    "single database",
                    "poll"),
            BackendOutcome.skipped("mariadb", REASON));

    @Test
    void aSkippedBackendIsOneRowWithTheReasonAndTheInstallCommand() {
        String table = SummaryTable.markdown(outcomes, 8);
        assertThat(table.lines().filter(l -> l.startsWith("| mariadb |")))
                .containsExactly("| mariadb | skipped: " + REASON + " | | | | | | | | | | |");
    }

    @Test
    void inTheHtmlReportTheReasonSpansTheMeasuredColumns() {
        String html = HtmlReport.markdownToHtml(SummaryTable.markdown(outcomes, 8));
        assertThat(html)
                .contains("<tr><td>mariadb</td><td colspan=\"11\" style=\"text-align:left\">skipped: "
                        + HtmlReport.escape(REASON) + "</td></tr>")
                .contains("<tr><td>h2</td><td>baton table</td><td>1,000</td><td>1,000</td><td>0.03 / 0.04</td>"
                        + "<td>96%</td><td>1.25 / 48.00</td><td>11.2% / 14.1%</td><td>250 / 250</td>"
                        + "<td>2.00 s</td><td>single database</td><td>poll</td></tr>");
    }

    @Test
    void theContendedRowCarriesItsFairnessAndTheSemaphoreRowItsColumnsWhenItRan() {
        String table = SummaryTable.markdown(outcomes, 8);
        assertThat(table.lines().findFirst().orElseThrow())
                .contains("| contended pairs/s (C8) | hand-off p50 / p99 ms (C8) | to another client (C8)"
                        + " | wait p99 / max ms (C8) | grants min / max per client (C8) | CPU")
                .doesNotContain("S8");

        List<BackendOutcome> withSemaphores = List.of(new BackendOutcome(
                "redis",
                null,
                List.of(
                        row("baton", Scenario.A8),
                        row("baton", Scenario.C8),
                        row("baton", Scenario.S8),
                        row("redisson", Scenario.A8),
                        row("redisson", Scenario.C8),
                        row("redisson RSemaphore", Scenario.S8)),
                Map.of("baton", "2.00 s"),
                "single Redis server",
                "hand-over queue"));
        List<String> lines = SummaryTable.markdown(withSemaphores, 8).lines().toList();
        assertThat(lines.get(0))
                .contains("| semaphore pairs/s (S8, 4 permits) | to another client, wait max ms (S8) |");
        assertThat(lines)
                .contains("| redis | baton | 1,000 | 1,000 | 0.03 / 0.04 | 96% | 1.25 / 48.00 | 11.2% / 14.1% | 1,000"
                        + " | 96%, 48.00 | 250 / 250 | 2.00 s | single Redis server | hand-over queue |")
                .contains(
                        "| redis | redisson RSemaphore | - | - | - | - | - | - | 1,000 | 96%, 48.00 | - / - | - |  |  |");
    }

    @Test
    void theReportHasAFairnessTableOfTheContendedRowsOnly() {
        String fairness = HtmlReport.fairnessTable(outcomes);
        assertThat(fairness.lines())
                .containsExactly(
                        "| backend | subject | scenario | pairs/s | to another client | wait p99 ms | wait max ms"
                                + " | grants min / max per client |",
                        "|---|---|---|---:|---:|---:|---:|---:|",
                        "| h2 | baton table | C8 | 1,000 | 96% | 1.25 | 48.00 | 11.2% / 14.1% |");
    }
}
