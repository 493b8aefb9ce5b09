package dev.baton.bench;

import java.util.List;

/**
 * One backend's benchmark set-up: starts (or reaches) its server and offers the subjects to compare
 * on it, Baton first, then peers and raw baselines, all against the same server.
 */
public interface BenchBackend extends AutoCloseable {

    /** Short name used on the command line, e.g. {@code h2}, {@code postgres}, {@code redis}. */
    String id();

    /** Starts the embedded server, or connects to {@code externalUri} when it is not null. */
    List<LockSubject> start(String externalUri);

    /** Facts for the summary table. */
    default String consistencyModel() {
        return "";
    }

    /** How waiters learn that the lock is free. */
    default String waiterNotification() {
        return "";
    }

    /** Stops what {@link #start} started. */
    @Override
    void close();
}
