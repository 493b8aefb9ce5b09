package dev.baton.internal;

/** A monotonic clock in nanoseconds; injectable so that tests can control time. */
@FunctionalInterface
interface Ticker {
    /** The JVM's monotonic clock, {@link System#nanoTime()}. */
    Ticker SYSTEM = System::nanoTime;

    /**
     * The current time of this clock.
     *
     * @return nanoseconds from an arbitrary origin; only differences between two readings mean
     *     anything
     */
    long nanoTime();
}
