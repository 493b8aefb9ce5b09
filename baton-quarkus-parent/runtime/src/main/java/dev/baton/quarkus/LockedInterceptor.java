package dev.baton.quarkus;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockException;
import dev.baton.LockListener;
import dev.baton.LockTimeoutException;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acquires a {@link Locked} method's lock, runs the method, and releases the lock however it ends (at
 * once, or after the rest of its {@link Locked#lockAtLeastFor()}); skips the call quietly when it
 * asks to and the lock is taken. The same steps as the Spring starters' interceptor. Its priority
 * puts it outside {@code @Transactional}'s interceptor ({@code PLATFORM_BEFORE + 200}), so that a
 * transaction commits before its lock is released.
 */
@Locked(name = "")
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
class LockedInterceptor {
    private static final Logger log = LoggerFactory.getLogger(LockedInterceptor.class);

    @Inject
    LockClient client;

    @Inject
    LockedMethods methods;

    @Inject
    LockedReleases releases;

    @AroundInvoke
    Object lock(InvocationContext invocation) throws Exception {
        LockedMethods.LockedMethod locked = methods.find(invocation.getMethod());
        String name = LockedMethods.resolveName(locked, invocation.getParameters());
        if (locked.lockAtLeastFor() != null) {
            checkAtLeastFitsTheLease(locked, client);
        }
        DistributedLock lock = locked.leaseTime() == null
                ? client.lock(name)
                : client.lock(name, client.options().withLeaseTime(locked.leaseTime()));
        Lease lease = acquire(locked, name, lock);
        if (lease == null) {
            log.debug("{} skipped: the lock '{}' on {} is held elsewhere", locked.where(), name, client.backendName());
            return locked.skipped().get();
        }
        long acquired = System.nanoTime();
        LockedContext.push(lease);
        try {
            return invocation.proceed();
        } finally {
            LockedContext.pop();
            release(locked, name, lease, acquired);
        }
    }

    /** The lease, or {@code null} when the call skips; waits as the annotation says. */
    private Lease acquire(LockedMethods.LockedMethod locked, String name, DistributedLock lock) {
        Duration wait = locked.waitTime();
        CompletableFuture<Void> kept = releases.keptFor(name);
        if (kept != null) {
            // This thread still keeps the lock for an earlier call's lockAtLeastFor: taking it would
            // reenter it, so the call waits for that release like a call on any other thread would.
            long started = System.nanoTime();
            if (!released(kept, wait)) {
                reportTaken(client, name, Duration.ofNanos(System.nanoTime() - started));
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

    private static Lease notAcquired(LockedMethods.LockedMethod locked, String name, String why) {
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
    private static void reportTaken(LockClient locks, String name, Duration waited) {
        for (LockListener listener : locks.options().listeners()) {
            try {
                listener.acquireEnded(name, locks.backendName(), LockListener.AcquireOutcome.TIMED_OUT, waited);
            } catch (RuntimeException e) {
                log.debug("Baton @Locked: a listener failed on '{}': {}", name, e.toString());
            }
        }
    }

    private void release(LockedMethods.LockedMethod locked, String name, Lease lease, long acquired) {
        Duration atLeast = locked.lockAtLeastFor();
        Duration held = Duration.ofNanos(System.nanoTime() - acquired);
        if (atLeast == null || held.compareTo(atLeast) >= 0) {
            lease.close();
        } else {
            releases.releaseAfter(name, lease, atLeast.minus(held));
        }
    }

    /** Without renewal, a lease shorter than lockAtLeastFor would end before the lock is meant to go. */
    private static void checkAtLeastFitsTheLease(LockedMethods.LockedMethod locked, LockClient locks) {
        Duration lease = locked.leaseTime() == null ? locks.options().leaseTime() : locked.leaseTime();
        if (!locks.options().autoRenew() && locked.lockAtLeastFor().compareTo(lease) > 0) {
            throw new LockConfigurationException(locked.where() + ": lockAtLeastFor (" + locked.lockAtLeastFor()
                    + ") is longer than the lease time (" + lease + ") and auto-renewal is off, so the lease would"
                    + " end first; raise leaseTime on the annotation or baton.lease-time, or turn baton.auto-renew on");
        }
    }
}
