package dev.baton.bench;

/**
 * One lock implementation under measurement: Baton on a backend, a peer library (Redisson, Curator,
 * ShedLock) or a raw baseline. Every subject goes through the same {@link Scenario}s; the semaphore
 * scenario ({@link Scenario#S8}) only those that {@linkplain #hasSemaphores() have semaphores}.
 */
public interface LockSubject extends AutoCloseable {

    /** Row label, e.g. {@code baton}, {@code redisson}, {@code raw lettuce}. */
    String name();

    /** A new independent client (its own connections), as one application instance would have. */
    Client newClient();

    /**
     * Whether {@link Client#acquirePermit} works, so that the runner measures {@link Scenario#S8} for
     * this subject. May connect to find out (Baton asks its backend); false by default.
     */
    default boolean hasSemaphores() {
        return false;
    }

    /**
     * Whether this subject runs {@code scenario}: every subject runs the lock scenarios, those with
     * semaphores also {@link Scenario#S8}; a variant that differs only when waiters compete (Baton
     * with {@code fair=false}) runs the contended lock scenarios only.
     */
    default boolean runs(Scenario scenario) {
        return !scenario.semaphore() || hasSemaphores();
    }

    /**
     * Row label of the semaphore rows: {@link #name()} unless the subject's semaphore is a primitive
     * of its own, e.g. {@code redisson RSemaphore} beside the {@code redisson} lock.
     */
    default String semaphoreName() {
        return name();
    }

    /** Releases whatever the subject holds beyond its clients. */
    @Override
    default void close() {}

    /** One application instance's view of the subject. Thread-safe. */
    interface Client extends AutoCloseable {
        /** Blocks until the named lock is held by the calling thread; returns how to release it. */
        Held acquire(String lockName);

        /**
         * Blocks until one permit of the semaphore {@code name}, which has {@code permits} permits in
         * all, is held; returns how to give it back.
         *
         * @throws UnsupportedOperationException if the subject has no semaphores (the default)
         */
        default Held acquirePermit(String name, int permits) {
            throw new UnsupportedOperationException(
                    "this subject has no semaphores; the runner asks only subjects whose hasSemaphores() is true");
        }

        @Override
        void close();
    }

    /** A held lock, or a held permit. */
    @FunctionalInterface
    interface Held {
        void release();
    }
}
