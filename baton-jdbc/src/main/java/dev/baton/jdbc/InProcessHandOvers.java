package dev.baton.jdbc;

import dev.baton.spi.Grant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JVM-wide line of H2's and MariaDB's fair waiters by owner id, so that a hand-off release
 * ({@link HandOff}) wakes an heir waiting in this JVM with its grant right after its commit, without
 * a poll, whichever client of this JVM released (H2 is usually embedded, several clients share it).
 * An heir in another JVM, or one not registered here, finds its grant by its poll ({@link
 * HandOverQueue}). Owner ids are 128 random bits per acquisition, so one map serves every backend.
 */
final class InProcessHandOvers {
    /** A waiter's end of the line: takes a grant the release wrote for it. */
    interface Heir {
        void handed(Grant grant);
    }

    private static final Map<String, Heir> HEIRS = new ConcurrentHashMap<>();

    private InProcessHandOvers() {}

    static void register(String owner, Heir heir) {
        HEIRS.put(owner, heir);
    }

    static void unregister(String owner, Heir heir) {
        HEIRS.remove(owner, heir);
    }

    /** Wakes the heir of a committed hand-off if it waits in this JVM; false if it does not. */
    static boolean wake(Grant grant) {
        Heir heir = HEIRS.get(grant.ownerId());
        if (heir == null) {
            return false;
        }
        heir.handed(grant);
        return true;
    }
}
