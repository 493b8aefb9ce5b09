package dev.baton.bench;

import java.time.Duration;

/**
 * How long to measure.
 *
 * @param warmup untimed run before the measured runs
 * @param run length of one measured run
 * @param runs measured runs per scenario; the reported rate is their median
 */
public record BenchSettings(Duration warmup, Duration run, int runs) {
    public BenchSettings {
        if (warmup.isNegative() || run.isZero() || run.isNegative() || runs < 1) {
            throw new IllegalArgumentException(
                    "warmup >= 0, run > 0 and runs >= 1 required: " + warmup + ", " + run + ", " + runs);
        }
    }

    /** The standard: 2 s warm-up, median of 3 runs of 5 s. */
    public static BenchSettings standard() {
        return new BenchSettings(Duration.ofSeconds(2), Duration.ofSeconds(5), 3);
    }
}
