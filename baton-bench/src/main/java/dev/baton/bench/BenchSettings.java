package dev.baton.bench;

import java.time.Duration;

/**
 * How long to measure, and how each holder behaves.
 *
 * @param warmup untimed run before the measured runs
 * @param run length of one measured run
 * @param runs measured runs per scenario; the reported rate is their median
 * @param threads threads of the A8, B8 and C8 rows (A1 always has one)
 * @param hold how long each holder keeps the lock before releasing it: zero (the standard rows)
 *     measures the lock alone; a hold of about a millisecond models a critical section that waits on
 *     I/O, so the waiters are queued and the CPU is free when the lock changes hands
 */
public record BenchSettings(Duration warmup, Duration run, int runs, int threads, Duration hold) {
    public BenchSettings {
        if (warmup.isNegative() || run.isZero() || run.isNegative() || runs < 1 || threads < 1 || hold.isNegative()) {
            throw new IllegalArgumentException("warmup >= 0, run > 0, runs >= 1, threads >= 1 and hold >= 0"
                    + " required: " + warmup + ", " + run + ", " + runs + ", " + threads + ", " + hold);
        }
    }

    /** No hold: each holder releases at once. */
    public BenchSettings(Duration warmup, Duration run, int runs, int threads) {
        this(warmup, run, runs, threads, Duration.ZERO);
    }

    /** The standard 8 threads for the A8, B8 and C8 rows, no hold. */
    public BenchSettings(Duration warmup, Duration run, int runs) {
        this(warmup, run, runs, 8);
    }

    /** Threads for a scenario: 1 for A1, {@link #threads()} for the others. */
    public int threadsFor(Scenario scenario) {
        return scenario.threads() == 1 ? 1 : threads;
    }

    /** The standard: 2 s warm-up, median of 3 runs of 5 s, 8 threads, no hold. */
    public static BenchSettings standard() {
        return new BenchSettings(Duration.ofSeconds(2), Duration.ofSeconds(5), 3, 8);
    }
}
