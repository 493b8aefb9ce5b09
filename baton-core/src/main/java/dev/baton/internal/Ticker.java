package dev.baton.internal;

/** A monotonic clock in nanoseconds; injectable so that tests can control time. */
@FunctionalInterface
public interface Ticker {
    Ticker SYSTEM = System::nanoTime;

    long nanoTime();
}
