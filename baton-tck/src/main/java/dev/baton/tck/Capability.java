package dev.baton.tck;

/**
 * A property a backend may or may not honour. The kit runs the tests of every declared capability
 * and checks that an undeclared one is refused cleanly, so a claim is always verified.
 */
public enum Capability {
    /** Read/write locks: shared holders coexist, an exclusive holder excludes them. */
    SHARED_MODE,
    /**
     * Semaphores ({@code LockClient.semaphore}): at most N permit holders of a name, each permit a
     * renewed, fenced lease. A backend without it refuses {@code semaphore(...)} with a clear error.
     */
    SEMAPHORES,
    /**
     * Fair hand-off between clients: a waiter on another client comes before an immediate
     * re-acquire by the client that just released, so no client starves while others loop on the
     * lock. A fixture whose backend barges (by request, {@code fair=false}) leaves it out, and the
     * kit then only checks that every client still gets the lock eventually.
     */
    FAIR
}
