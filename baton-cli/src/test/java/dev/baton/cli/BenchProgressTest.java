package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.bench.BatonSubject;
import dev.baton.bench.BenchBackend.PlannedSubjects;
import dev.baton.bench.BenchSettings;
import dev.baton.bench.Scenario;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The progress of a bench run, on a clock the test moves: rows, elapsed time and time left. */
class BenchProgressTest {
    private final AtomicLong now = new AtomicLong();
    private final StringWriter text = new StringWriter();
    private final BenchSettings settings = BenchPreset.QUICK.settings(null, null, null, 8, Duration.ZERO);
    private final BenchPlan plan =
            new BenchPlan(BenchPlanTest.H2_AND_POSTGRES, List.of(Scenario.A8, Scenario.C8), settings, true);

    private void advance(Duration duration) {
        now.addAndGet(duration.toNanos());
    }

    private BenchProgress progress(boolean terminal) {
        return new BenchProgress(plan, new PrintWriter(text, true), terminal, now::get);
    }

    private static String left(Duration duration) {
        return "about " + BenchPlan.clock(duration) + " left";
    }

    @Test
    void plainLinesCountRowsAndTimeLeftDownAndASkippedBackendLeavesThePlan() {
        Duration planned = plan.estimate().minus(BenchPlan.FIXED);
        try (BenchProgress progress = progress(false)) {
            progress.backendStarting("h2", "h2: starting embedded server");
            advance(Duration.ofSeconds(2));
            progress.backendStarted(new PlannedSubjects(2, 2));
            progress.runStarting(new BatonSubject("baton table", () -> null), Scenario.A8, 1);
            advance(Duration.ofSeconds(1));
            progress.note("an error line");
            progress.backendDone();
            progress.backendStarting("postgres", "postgres: starting embedded server");
            progress.note("postgres: skipped: initdb is missing; install it with apt-get install postgresql");
            progress.backendDone();
            assertThat(progress.status())
                    .as("h2 ended after one of its four runs and postgres did not start: nothing is left")
                    .isEqualTo("[row 1/1, 0:03 elapsed, about 0:00 left] postgres: starting embedded server");
        }
        List<String> lines = text.toString().lines().toList();
        assertThat(lines.get(0))
                .isEqualTo("[row 0/18, 0:00 elapsed, " + left(planned) + "] h2: starting embedded server");
        assertThat(lines.get(1))
                .as("the start-up took as planned; the run has just begun")
                .isEqualTo(
                        "[row 1/18, 0:02 elapsed, " + left(planned.minus(BenchPlan.START_UP)) + "] h2: baton table A8");
        assertThat(lines.get(2)).isEqualTo("[0:03] an error line");
        assertThat(lines.get(3))
                .startsWith("[row 1/15, 0:03 elapsed, about ")
                .endsWith("] postgres: starting embedded server");
        assertThat(lines.get(4))
                .isEqualTo(
                        "[0:03] postgres: skipped: initdb is missing; install it with apt-get install" + " postgresql");
        assertThat(lines).hasSize(5);
        assertThat(text.toString()).doesNotContain("\r");
    }

    @Test
    void onATerminalTheStepIsOneLineRedrawnInPlaceBelowTheLinesThatStay() {
        try (BenchProgress progress = progress(true)) {
            progress.backendStarting("h2", "h2: starting embedded server");
            progress.note("h2: a line that stays");
            progress.runStarting(new BatonSubject("baton table", () -> null), Scenario.A8, 1);
        }
        assertThat(text.toString())
                .startsWith("\r\033[K[row 0/18, 0:00 elapsed, about ")
                .contains("] h2: starting embedded server\r\033[K[0:00] h2: a line that stays" + System.lineSeparator()
                        + "[row 0/18")
                .contains("\r\033[K[row 1/18, 0:00 elapsed, about ")
                .endsWith("\r\033[K");
        assertThat(text.toString().chars().filter(c -> c == '\n').count())
                .as("only the line that stays ends a line")
                .isEqualTo(1);
    }

    @Test
    void aLongStepIsCutToFitAnEightyColumnTerminal() {
        try (BenchProgress progress = progress(true)) {
            progress.backendStarting("postgres", "postgres: " + "a very long step name ".repeat(5));
            advance(Duration.ofSeconds(TimeUnit.MINUTES.toSeconds(1)));
            assertThat(progress.status()).hasSize(79).startsWith("[row 0/18, 1:00 elapsed, about ");
        }
    }
}
