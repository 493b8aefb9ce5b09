package dev.baton.internal;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Capped exponential backoff with "equal jitter": each pause is half the current step plus a random
 * part of the other half, so waiters spread out without ever pausing for nothing.
 */
final class Backoff {
    private final long maxNanos;
    private long stepNanos;

    Backoff(Duration initial, Duration max) {
        this.stepNanos = initial.toNanos();
        this.maxNanos = max.toNanos();
    }

    long nextPauseNanos() {
        long step = stepNanos;
        stepNanos = Math.min(maxNanos, stepNanos * 2);
        long half = step / 2;
        return half + ThreadLocalRandom.current().nextLong(half + 1);
    }
}
