package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code baton check}: a short real run, and bad arguments refused before anything starts. */
class CheckCommandTest {

    @TempDir
    Path dir;

    @Test
    void aShortRunPrintsTheTableAndWritesTheReportWithATimeline() throws Exception {
        Path report = dir.resolve("check.html");
        CliRun run = CliRun.of(
                "check", "--backends", "redis", "--faults", "pause", "--duration", "5s", "--report", report.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err())
                .contains("baton check: 1 run of 5000 ms, 4 clients, lease 1000 ms, seed 1; about ")
                .contains("[1/1] redis under pause ...");
        assertThat(run.out())
                .contains(
                        "| backend | fault | faults | holds | availability | failed attempts | overlaps (under isolation) |")
                .as("availability: grants per second against the same target without faults")
                .containsPattern(
                        "\\| redis \\| pause \\| [0-9]+ \\| [0-9]+ \\| [0-9]+% \\| [0-9]+ \\| [0-9]+ \\([0-9]+\\) \\|")
                .containsPattern("\\| 0 \\| [0-9]+ \\| 0 \\| [^|]+ \\| safe( with fencing)? \\|");
        String html = Files.readString(report, StandardCharsets.UTF_8);
        assertThat(html).contains("<table>").contains("redis: Baton, Redis single");
    }

    @Test
    void anUnknownBackendIsRefusedWithTheKnownOnes() {
        CliRun run = CliRun.of("check", "--backends", "mongo");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err())
                .contains("unknown backend 'mongo'")
                .contains("postgres")
                .contains("naive-setnx");
    }

    @Test
    void anUnknownFaultIsRefusedWithTheKnownOnes() {
        CliRun run = CliRun.of("check", "--faults", "meteor");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("unknown fault 'meteor'").contains("kill, pause, cut, blackhole");
    }

    @Test
    void aFaultNoChosenBackendSupportsIsRefused() {
        CliRun run = CliRun.of("check", "--backends", "postgres", "--faults", "failover");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("no backend among [postgres] supports the faults [failover]");
    }

    @Test
    void aLeaseShorterThanTheWorkIsRefused() {
        CliRun run = CliRun.of("check", "--lease", "10ms");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("lease time must be at least 500ms");
    }
}
