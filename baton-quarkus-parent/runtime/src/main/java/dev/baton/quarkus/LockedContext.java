package dev.baton.quarkus;

import dev.baton.Lease;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The lease of the {@link Locked} method running on the current thread. Valid only during the call,
 * on the thread that made it; in nested {@link Locked} calls it is the innermost one's.
 */
public final class LockedContext {

    private static final ThreadLocal<Deque<Lease>> LEASES = ThreadLocal.withInitial(ArrayDeque::new);

    private LockedContext() {}

    /**
     * The lease held for the {@link Locked} method that is running on this thread.
     *
     * @return the innermost running {@link Locked} method's lease, valid while the method runs
     * @throws IllegalStateException outside a {@link Locked} method (or on another thread than the
     *     one that called it)
     */
    public static Lease currentLease() {
        Lease lease = LEASES.get().peek();
        if (lease == null) {
            throw new IllegalStateException("LockedContext.currentLease(): no @Locked method is running on thread '"
                    + Thread.currentThread().getName()
                    + "'; call it inside a method annotated with @Locked (of a CDI bean), on the thread that"
                    + " called the method");
        }
        return lease;
    }

    /**
     * The fencing token of {@link #currentLease()}: strictly higher for each new holder of the lock.
     *
     * @return the token to pass with every write to the protected resource
     * @throws IllegalStateException outside a {@link Locked} method
     */
    public static long fencingToken() {
        return currentLease().fencingToken();
    }

    static void push(Lease lease) {
        LEASES.get().push(lease);
    }

    static void pop() {
        Deque<Lease> leases = LEASES.get();
        leases.pop();
        if (leases.isEmpty()) {
            LEASES.remove();
        }
    }
}
