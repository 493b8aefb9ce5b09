package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.bench.BenchSettings;
import dev.baton.bench.Scenario;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code baton bench} on embedded H2 for one second per run. */
class BenchCommandTest {

    @TempDir
    Path dir;

    @Test
    void benchOnH2PrintsTheTableAndWritesTheReport() throws Exception {
        Path report = dir.resolve("report.html");
        CliRun run = CliRun.of(
                "bench", "--backends", "h2", "--duration", "1s", "--runs", "1", "--report", report.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("| backend | strategy | uncontended pairs/s (A8) | contended pairs/s (C8)")
                // CPU per pair: the client's, plus the server processes' where any ran beside this JVM
                // (H2 runs inside it; another test's child process may not have ended yet).
                .containsPattern("\\| h2 \\| baton table \\| [0-9,]+ \\| [0-9,]+ \\| [0-9.]+ / [0-9.]+ \\| [0-9.]+% \\|"
                        + " [0-9.]+ / [0-9.]+ \\| [0-9.]+% / [0-9.]+% \\| [0-9,]+(\\+[0-9,]+)? / [0-9,]+(\\+[0-9,]+)? \\|"
                        + " [0-9.]+ s \\|")
                .contains(dev.baton.bench.ResultTable.FAIRNESS_NOTE);
        assertThat(run.err())
                // The barging variant (fair=false) runs the contended scenario only: 2 + 1 rows.
                .contains("baton bench: quick comparison: 3 rows: 2 subjects (h2) x A8, C8, 1 run of 1s after a 1s"
                        + " warm-up each: about ")
                .contains("h2: starting embedded server")
                .containsPattern("\\[row 3/3, 0:[0-9]{2} elapsed, about 0:[0-9]{2} left\\] h2: baton table barging C8")
                .doesNotContain("baton table barging A8")
                .doesNotContain("baton table barging: recovery")
                .contains("h2: baton table: recovery after SIGKILL of a holder")
                .contains("baton bench: done in ");
        String html = Files.readString(report, StandardCharsets.UTF_8);
        assertThat(html)
                .contains("<table>")
                .contains("baton table")
                .contains("data:image/png;base64,")
                .contains("<h2>Fairness (contended rows)</h2>")
                .containsPattern("<td>h2</td><td>baton table</td><td>C8</td><td>[0-9,]+</td><td>[0-9.]+%</td>");
    }

    @Test
    void theDefaultsAnnounceAQuickComparisonAndHowLongFullWouldTake() {
        BenchSettings quick = BenchPreset.QUICK.settings(null, null, null, 8, Duration.ZERO);
        BenchPlan plan = new BenchPlan(BenchPlanTest.H2_AND_POSTGRES, List.of(Scenario.A8, Scenario.C8), quick, true);
        assertThat(benchWith().describe(plan))
                .isEqualTo("18 rows: 9 subjects (h2, postgres) x A8, C8, 1 run of 3s after a 1s warm-up each: about "
                        + BenchPlan.approximately(plan.estimate()) + "; --full (every scenario, median of 3 runs of"
                        + " 10s): about "
                        + BenchPlan.approximately(plan.with(
                                        BenchPreset.FULL.settings(null, null, null, 8, Duration.ZERO),
                                        List.of(Scenario.values()))
                                .estimate()));
        assertThat(benchWith("--duration", "1s").describe(plan))
                .as("with options of one's own, --full's defaults would not say how long --full takes")
                .doesNotContain("--full");
        assertThat(benchWith("--full").describe(plan)).doesNotContain("--full");
    }

    private static BenchCommand benchWith(String... options) {
        CommandLine commandLine = BatonCommand.commandLine();
        String[] args = new String[options.length + 1];
        args[0] = "bench";
        System.arraycopy(options, 0, args, 1, options.length);
        return (BenchCommand)
                commandLine.parseArgs(args).subcommand().commandSpec().userObject();
    }

    @Test
    void unknownBackendIsABadArgument() {
        CliRun run = CliRun.of("bench", "--backends", "nosuch", "--duration", "1s");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("unknown backend 'nosuch'").contains("h2");
    }
}
