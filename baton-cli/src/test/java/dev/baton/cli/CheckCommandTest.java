package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.check.CheckResult;
import dev.baton.check.CheckRow;
import dev.baton.check.CheckSummary;
import dev.baton.check.Fault;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
                // stale writes accepted 0, before the next holder's and fresh refused any, unreported losses 0
                .containsPattern("\\| 0 \\| [0-9]+ \\| [0-9]+ \\| 0 \\| [^|]+ \\| safe( with fencing)? \\|");
        String html = Files.readString(report, StandardCharsets.UTF_8);
        assertThat(html).contains("<table>").contains("redis: Baton, Redis single");
        assertThat(ProcessHandle.current()
                        .descendants()
                        .filter(ProcessHandle::isAlive)
                        .map(process -> process.info().commandLine().orElse("")))
                .as("no client JVM of the check outlives the command")
                .noneMatch(command -> command.contains("dev.baton.check.CheckClient"));
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
    void peersJoinTheirBackendsWithPeers() {
        CliRun run = CliRun.of("check", "--backends", "redis,postgres", "--peers", "--faults", "failover");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err())
                .contains("no backend among [redis, redisson, redisson-fenced, postgres, shedlock-jdbc] supports the"
                        + " faults [failover]");
    }

    @Test
    void aLeaseShorterThanTheWorkIsRefused() {
        CliRun run = CliRun.of("check", "--lease", "10ms");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("lease time must be at least 500ms");
    }

    @Test
    void seedsAreRangesAndListsEachOnce() {
        assertThat(CheckCommand.parseSeeds("1-3")).containsExactly(1L, 2L, 3L);
        assertThat(CheckCommand.parseSeeds("7,11,31")).containsExactly(7L, 11L, 31L);
        assertThat(CheckCommand.parseSeeds("1-3, 2,9")).containsExactly(1L, 2L, 3L, 9L);
        assertThat(CheckCommand.parseSeeds("-5")).containsExactly(-5L);
    }

    @Test
    void badSeedsAreRefusedBeforeAnythingStarts() {
        CliRun backwards = CliRun.of("check", "--seeds", "20-1");
        assertThat(backwards.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(backwards.err()).contains("the range '20-1' runs backwards");

        CliRun words = CliRun.of("check", "--seeds", "one-two");
        assertThat(words.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(words.err()).contains("'one-two' is neither a seed nor a range");
    }

    @Test
    void seedAndSeedsExcludeEachOther() {
        CliRun run = CliRun.of("check", "--seed", "3", "--seeds", "1-2");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("--seed and --seeds exclude each other");
    }

    @Test
    void leaderKillIsAFaultOfTheEtcdClusterOnly() {
        CliRun run = CliRun.of("check", "--backends", "etcd", "--faults", "leader-kill");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("no backend among [etcd] supports the faults [leader-kill]");
    }

    @Test
    void theSweepSummaryNamesTheWorstRunsFaultAndSeed() {
        CheckResult clean = new CheckResult(50, 0, 0, 0, Duration.ZERO, 0, 0, 0, 0, 0, List.of(), 0, 0.0, null);
        CheckResult overlapping =
                new CheckResult(50, 0, 3, 1, Duration.ofMillis(40), 0, 0, 0, 0, 0, List.of(), 0, 0.0, null);
        List<CheckRow> rows = List.of(
                new CheckRow("etcd", "etcd", false, true, List.of(Fault.KILL), 2, Duration.ofSeconds(6), 7, clean),
                new CheckRow(
                        "etcd",
                        "etcd",
                        false,
                        true,
                        List.of(Fault.LEADER_KILL),
                        2,
                        Duration.ofSeconds(6),
                        11,
                        overlapping));
        String summary = CheckTable.summary(CheckSummary.of(rows));
        assertThat(summary)
                .contains("| backend | runs | violations | not found | worst run: fault, seed |")
                .contains("| etcd | 2 | 1 | 0 | leader-kill, seed 11 | 2 | 0 | 0 | VIOLATION: 2 overlaps while the"
                        + " earlier holder ran freely or still believed its lease valid |");
        assertThat(CheckTable.markdown(rows, true)).contains("| etcd | kill | 7 | 2 | 50 |");
    }
}
