package dev.baton.locked.internal;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockException;
import dev.baton.LockListener;
import dev.baton.LockTimeoutException;
import dev.baton.locked.LockedTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;

/**
 * One call of a {@code @Locked} method, the same under every framework: acquires its lock (waiting as
 * the annotation says, or skipping quietly), runs the method with its lease in {@link
 * dev.baton.locked.LockedContext}, and releases the lock however it ends (at once, or after the rest of
 * its {@code lockAtLeastFor}). A framework's interceptor finds the method's {@link LockedMethod},
 * resolves the name and hands the invocation here.
 */
public final class LockedCall {
    /** The leases of the running calls on each thread, innermost first. */
    private static final ThreadLocal<Deque<Lease>> LEASES = ThreadLocal.withInitial(ArrayDeque::new);

    private LockedCall() {}

    /**
     * The method's own invocation, as the framework's interceptor proceeds with it.
     *
     * @param <X> what the invocation may throw
     */
    @FunctionalInterface
    public interface Invocation<X extends Throwable> {
        /**
         * Runs the method (and the interceptors inside this one).
         *
         * @return the method's result
         * @throws X what the method throws
         */
        Object proceed() throws X;
    }

    /**
     * Runs {@code invocation} under the lock {@code name}.
     *
     * @param <X> what the invocation may throw
     * @param log the framework's interceptor's logger, where a skipped call is logged at debug (so the
     *     framework's logging category shows it)
     * @param client the application's client
     * @param releases keeps the leases of calls shorter than their lockAtLeastFor
     * @param locked the method's parsed annotation
     * @param name the lock's name as resolved for this call
     * @param invocation runs the method
     * @return the method's result, or what a skipped call returns ({@code null} or {@code Optional.empty()})
     * @throws X what the method throws
     * @throws LockedTimeoutException when the lock was not acquired within the wait time (and the call
     *     does not skip); the method did not run
     * @throws LockConfigurationException when lockAtLeastFor outlasts a lease that is not renewed
     */
    public static <X extends Throwable> Object call(
            Logger log,
            LockClient client,
            LockedReleases releases,
            LockedMethod<?> locked,
            String name,
            Invocation<X> invocation)
            throws X {
        if (locked.lockAtLeastFor() != null) {
            checkAtLeastFitsTheLease(locked, client);
        }
        DistributedLock lock = locked.leaseTime() == null
                ? client.lock(name)
                : client.lock(name, client.options().withLeaseTime(locked.leaseTime()));
        Lease lease = acquire(log, locked, name, lock, client, releases);
        if (lease == null) {
            log.debug("{} skipped: the lock '{}' on {} is held elsewhere", locked.where(), name, client.backendName());
            return locked.skipped().get();
        }
        long acquired = System.nanoTime();
        Deque<Lease> leases = LEASES.get();
        leases.push(lease);
        try {
            return invocation.proceed();
        } finally {
            leases.pop();
            if (leases.isEmpty()) {
                LEASES.remove();
            }
            release(locked, name, lease, acquired, releases);
        }
    }

    /**
     * The lease of the innermost {@code @Locked} call running on this thread.
     *
     * @return the lease, {@code null} when no call runs on this thread
     */
    public static Lease innermostLease() {
        Deque<Lease> leases = LEASES.get();
        Lease lease = leases.peek();
        if (lease == null) {
            LEASES.remove();
        }
        return lease;
    }

    /** The lease, or {@code null} when the call skips; waits as the annotation says. */
    private static Lease acquire(
            Logger log,
            LockedMethod<?> locked,
            String name,
            DistributedLock lock,
            LockClient client,
            LockedReleases releases) {
        Duration wait = locked.waitTime();
        CompletableFuture<Void> kept = releases.keptFor(name);
        if (kept != null) {
            // This thread still keeps the lock for an earlier call's lockAtLeastFor: taking it would
            // reenter it, so the call waits for that release like a call on any other thread would.
            long started = System.nanoTime();
            if (!released(kept, wait)) {
                reportTaken(log, client, name, Duration.ofNanos(System.nanoTime() - started));
                return notAcquired(locked, name, "it is kept for the lockAtLeastFor of an earlier call on this thread");
            }
            wait = wait == null ? null : wait.minusNanos(System.nanoTime() - started);
            wait = wait == null || !wait.isNegative() ? wait : Duration.ZERO;
        }
        if (wait == null) {
            return lock.acquire();
        }
        try {
            return lock.acquire(wait);
        } catch (LockTimeoutException e) {
            return notAcquired(locked, name, e.getMessage());
        }
    }

    private static boolean released(CompletableFuture<Void> kept, Duration wait) {
        try {
            if (wait == null) {
                kept.get();
            } else {
                kept.get(wait.toNanos(), TimeUnit.NANOSECONDS);
            }
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("interrupted while waiting for a @Locked lock; nothing was acquired", e);
        }
    }

    private static Lease notAcquired(LockedMethod<?> locked, String name, String why) {
        if (locked.skipsIfLocked()) {
            return null;
        }
        throw new LockedTimeoutException(
                name,
                locked.where() + " did not run: " + why + " (waitTime = \"" + locked.waitTime() + "\" on the"
                        + " annotation)");
    }

    /**
     * A call that found its lock kept by its own thread never reached the client, which would report
     * it: the client's listeners (the meters) hear it as an acquire that timed out, as from any other
     * thread.
     */
    private static void reportTaken(Logger log, LockClient client, String name, Duration waited) {
        for (LockListener listener : client.options().listeners()) {
            try {
                listener.acquireEnded(name, client.backendName(), LockListener.AcquireOutcome.TIMED_OUT, waited);
            } catch (RuntimeException e) {
                log.debug("Baton @Locked: a listener failed on '{}': {}", name, e.toString());
            }
        }
    }

    private static void release(
            LockedMethod<?> locked, String name, Lease lease, long acquired, LockedReleases releases) {
        Duration atLeast = locked.lockAtLeastFor();
        Duration held = Duration.ofNanos(System.nanoTime() - acquired);
        if (atLeast == null || held.compareTo(atLeast) >= 0) {
            lease.close();
        } else {
            releases.releaseAfter(name, lease, atLeast.minus(held));
        }
    }

    /** Without renewal, a lease shorter than lockAtLeastFor would end before the lock is meant to go. */
    private static void checkAtLeastFitsTheLease(LockedMethod<?> locked, LockClient client) {
        Duration lease = locked.leaseTime() == null ? client.options().leaseTime() : locked.leaseTime();
        if (!client.options().autoRenew() && locked.lockAtLeastFor().compareTo(lease) > 0) {
            throw new LockConfigurationException(locked.where() + ": lockAtLeastFor (" + locked.lockAtLeastFor()
                    + ") is longer than the lease time (" + lease + ") and auto-renewal is off, so the lease would"
                    + " end first; raise leaseTime on the annotation or baton.lease-time, or turn baton.auto-renew on");
        }
    }
}
