package dev.baton.bench;

/**
 * One lock implementation under measurement: Baton on a backend, a peer library (Redisson, Curator,
 * ShedLock) or a raw baseline. Every subject goes through the same {@link Scenario}s.
 */
public interface LockSubject extends AutoCloseable {

    /** Row label, e.g. {@code baton}, {@code redisson}, {@code raw lettuce}. */
    String name();

    /** A new independent client (its own connections), as one application instance would have. */
    Client newClient();

    /** Releases whatever the subject holds beyond its clients. */
    @Override
    default void close() {}

    /** One application instance's view of the subject. Thread-safe. */
    interface Client extends AutoCloseable {
        /** Blocks until the named lock is held by the calling thread; returns how to release it. */
        Held acquire(String lockName);

        @Override
        void close();
    }

    /** A held lock. */
    @FunctionalInterface
    interface Held {
        void release();
    }
}
