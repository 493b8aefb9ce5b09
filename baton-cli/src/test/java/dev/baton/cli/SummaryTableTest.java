package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.bench.Scenario;
import dev.baton.bench.ScenarioResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The summary table of {@code baton bench}: a skipped backend is one readable line with its reason. */
class SummaryTableTest {
    static final String REASON = "mariadbd is not installed; install Debian's package with 'apt-get install -y"
            + " mariadb-server' (see .ci/run), or set BATON_MARIADB_URL to an external server";

    private static ScenarioResult row(String subject, Scenario scenario) {
        return new ScenarioResult(subject, scenario, 1000, List.of(1000.0), 10, 20, 30, 40, 0, 0, 250, Double.NaN);
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
        String table = BenchCommand.summaryTable(outcomes, 8);
        assertThat(table.lines().filter(l -> l.startsWith("| mariadb |")))
                .containsExactly("| mariadb | skipped: " + REASON + " | | | | | | | |");
    }

    @Test
    void inTheHtmlReportTheReasonSpansTheMeasuredColumns() {
        String html = HtmlReport.markdownToHtml(BenchCommand.summaryTable(outcomes, 8));
        assertThat(html)
                .contains("<tr><td>mariadb</td><td colspan=\"8\" style=\"text-align:left\">skipped: "
                        + HtmlReport.escape(REASON) + "</td></tr>")
                .contains(
                        "<tr><td>h2</td><td>baton table</td><td>1,000</td><td>1,000</td><td>0.03 / 0.04</td><td>250 / 250</td>"
                                + "<td>2.00 s</td><td>single database</td><td>poll</td></tr>");
    }
}
