package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
                .containsPattern(
                        "\\| h2 \\| baton table \\| [0-9,]+ \\| [0-9,]+ \\| [0-9.]+ / [0-9.]+ \\| [0-9.]+ s \\|");
        assertThat(run.err()).contains("h2: starting embedded server").contains("baton table C8: run 1/1");
        String html = Files.readString(report, StandardCharsets.UTF_8);
        assertThat(html).contains("<table>").contains("baton table").contains("data:image/png;base64,");
    }

    @Test
    void unknownBackendIsABadArgument() {
        CliRun run = CliRun.of("bench", "--backends", "nosuch", "--duration", "1s");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("unknown backend 'nosuch'").contains("h2");
    }
}
