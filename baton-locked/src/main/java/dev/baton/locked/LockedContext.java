package dev.baton.locked;

import dev.baton.Lease;
import dev.baton.locked.internal.LockedCall;

/**
 * The lease of the {@code @Locked} method running on the current thread, under the Spring Boot
 * starters and the Quarkus extension alike. Valid only during the call, on the thread that made it;
 * in nested {@code @Locked} calls it is the innermost one's.
 */
public final class LockedContext {

    private LockedContext() {}

    /**
     * The lease held for the {@code @Locked} method that is running on this thread.
     *
     * @return the innermost running {@code @Locked} method's lease, valid while the method runs
     * @throws IllegalStateException outside a {@code @Locked} method (or on another thread than the
     *     one that called it)
     */
    public static Lease currentLease() {
        Lease lease = LockedCall.innermostLease();
        if (lease == null) {
            throw new IllegalStateException("LockedContext.currentLease(): no @Locked method is running on thread '"
                    + Thread.currentThread().getName()
                    + "'; call it inside a method annotated with @Locked (called through its Spring proxy or CDI"
                    + " bean), on the thread that called the method");
        }
        return lease;
    }

    /**
     * The fencing token of {@link #currentLease()}: strictly higher for each new holder of the lock.
     *
     * @return the token to pass with every write to the protected resource
     * @throws IllegalStateException outside a {@code @Locked} method
     */
    public static long fencingToken() {
        return currentLease().fencingToken();
    }
}
