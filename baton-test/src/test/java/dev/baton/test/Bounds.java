package dev.baton.test;

import java.time.Duration;

/**
 * The time bounds of this module's own tests, in one place, built as the kit's are: a lease or an
 * operation timeout, plus {@link #SLACK} for scheduling on a loaded machine.
 */
final class Bounds {
    /** Tolerance added to every bound: scheduling on a loaded 2-core machine, JIT, GC (the kit's too). */
    static final Duration SLACK = Duration.ofSeconds(3);

    private Bounds() {}

    /** How long a wait that a lease (or an operation timeout) of {@code time} ends may take at most. */
    static Duration lease(Duration time) {
        return time.plus(SLACK);
    }
}
