package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The semaphore row (S8: 8 clients, 4 permits) on the embedded Redis server: Redisson's RSemaphore
 * (and Baton's semaphore where the Redis backend has them) never lets a fifth holder in, and every
 * row carries its fairness figures; the raw baseline, which has no semaphore, gets no row.
 */
class SemaphoreRowTest {

    @Test
    void s8OnRedisHasNoOverlapAndSensibleFairness() {
        List<ScenarioResult> results = BenchMain.run(
                List.of("redis"),
                List.of(Scenario.S8),
                new BenchSettings(Duration.ZERO, Duration.ofMillis(500), 1),
                null,
                new PrintStream(OutputStream.nullOutputStream()));

        assertThat(results).extracting(ScenarioResult::subject).contains("redisson RSemaphore");
        assertThat(results).extracting(ScenarioResult::subject).doesNotContain("raw lettuce", "redisson");
        for (ScenarioResult result : results) {
            ScenarioResult.Fairness fairness = result.fairness();
            assertThat(result.scenario()).isEqualTo(Scenario.S8);
            assertThat(result.overlaps())
                    .as("%s: more than 4 holders inside", result.subject())
                    .isZero();
            assertThat(result.errors()).as("%s errors", result.subject()).isZero();
            assertThat(result.pairsPerSecond()).as(result.subject()).isPositive();
            assertThat(result.handoffP50Micros())
                    .as("no hand-off for a semaphore")
                    .isNaN();
            assertThat(fairness.measured()).as(result.subject()).isTrue();
            assertThat(fairness.toAnotherClientPercent()).isBetween(0.0, 100.0);
            assertThat(fairness.minSharePercent()).isBetween(0.0, 12.5);
            assertThat(fairness.maxSharePercent()).isBetween(12.5, 100.0);
            assertThat(fairness.waitP99Micros()).isPositive().isLessThanOrEqualTo(fairness.waitMaxMicros());
        }
    }
}
