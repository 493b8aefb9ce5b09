package dev.baton.internal;

import dev.baton.LockMode;

/** How messages name a lock, a read lock or a semaphore, so that every message says it the same way. */
final class Describe {
    private Describe() {}

    /**
     * For example {@code Baton lock 'a' on redis}, {@code Baton lock 'a' (read) on redis}, {@code
     * Baton semaphore 'a' (4 permits) on redis}.
     */
    static String lock(String name, LockMode mode, int permits, String backend) {
        if (permits > 0) {
            return "Baton semaphore '" + name + "' (" + permits + (permits == 1 ? " permit" : " permits") + ") on "
                    + backend;
        }
        return "Baton lock '" + name + "'" + (mode == LockMode.SHARED ? " (read)" : "") + " on " + backend;
    }
}
