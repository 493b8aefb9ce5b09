package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fair hand-off protocol's subjects are fair locks: on an embedded PostgreSQL, 8 clients on one
 * name never overlap, every grant's fencing token is above the previous one of its name (a subject
 * fails the iteration otherwise, counted as an error), and with each holder inside for a moment, so
 * that the line is never empty, the grants go to another client.
 */
class FairHandOffSubjectsTest {

    @Test
    void protocolsExcludeHandOnInLineAndKeepTokensIncreasing() {
        List<ScenarioResult> results = BenchMain.run(
                List.of("postgres-fair"),
                List.of(Scenario.A8, Scenario.C8),
                new BenchSettings(Duration.ZERO, Duration.ofMillis(700), 1, 8, Duration.ofMillis(1)),
                null,
                List.of("proto"),
                new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
        assertThat(results)
                .extracting(ScenarioResult::subject)
                .containsExactly("proto table fair hand-off", "proto table fair hand-off");
        for (ScenarioResult result : results) {
            String row = result.subject() + " " + result.scenario();
            assertThat(result.errors()).as(row + " errors").isZero();
            assertThat(result.overlaps()).as(row + " overlaps").isZero();
            assertThat(result.pairsPerSecond()).as(row + " rate").isPositive();
        }
        for (ScenarioResult c8 : results.subList(1, 2)) {
            assertThat(c8.fairness().toAnotherClientPercent())
                    .as(c8.subject() + " C8 grants to another client")
                    .isGreaterThanOrEqualTo(90);
        }
    }
}
