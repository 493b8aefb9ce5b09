package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bare-client protocols are locks: on an embedded ZooKeeper, 8 clients on one name never overlap
 * (each holder stays inside for a moment, so waiters queue deep and take the event-only paths), and
 * uncontended rows run.
 */
class ZooKeeperProtocolSubjectsTest {

    @Test
    void bareProtocolsExcludeEachOtherAndHandTheLockOver() {
        List<ScenarioResult> results = BenchMain.run(
                List.of("zookeeper-protocols"),
                List.of(Scenario.A8, Scenario.C8),
                new BenchSettings(Duration.ZERO, Duration.ofMillis(700), 1, 8, Duration.ofMillis(1)),
                null,
                List.of("bare:"),
                new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
        assertThat(results)
                .extracting(ScenarioResult::subject)
                .containsExactly(
                        "bare: baton protocol", "bare: curator loop", "bare: baton protocol", "bare: curator loop");
        for (ScenarioResult result : results) {
            String row = result.subject() + " " + result.scenario();
            assertThat(result.errors()).as(row + " errors").isZero();
            assertThat(result.overlaps()).as(row + " overlaps").isZero();
            assertThat(result.pairsPerSecond()).as(row + " rate").isPositive();
        }
        assertThat(results.get(2).handoffP50Micros())
                .as("baton protocol C8 hand-off")
                .isPositive();
    }
}
