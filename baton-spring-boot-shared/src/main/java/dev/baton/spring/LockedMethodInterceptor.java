package dev.baton.spring;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockListener;
import dev.baton.LockTimeoutException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Acquires a {@link Locked} method's lock, runs the method, and releases the lock however it ends (at
 * once, or after the rest of its {@link Locked#lockAtLeastFor()}); skips the call quietly when it
 * asks to and the lock is taken.
 */
final class LockedMethodInterceptor implements MethodInterceptor {
    private static final Logger log = LoggerFactory.getLogger(LockedMethodInterceptor.class);

    private final ObjectProvider<LockClient> client;
    private final ObjectProvider<LockedReleases> releases;
    private final LockedMethods methods;

    LockedMethodInterceptor(
            ObjectProvider<LockClient> client, ObjectProvider<LockedReleases> releases, LockedMethods methods) {
        this.client = client;
        this.releases = releases;
        this.methods = methods;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass =
                target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
        Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), targetClass);
        LockedMethods.LockedMethod locked = methods.find(method, targetClass);
        if (locked == null) {
            return invocation.proceed();
        }
        String name = methods.resolveName(locked, method, target, invocation.getArguments());
        LockClient locks = client.getObject();
        if (locked.lockAtLeastFor() != null) {
            checkAtLeastFitsTheLease(locked, locks);
        }
        DistributedLock lock = locked.leaseTime() == null
                ? locks.lock(name)
                : locks.lock(name, locks.options().withLeaseTime(locked.leaseTime()));
        Lease lease = acquire(locked, name, lock, locks);
        if (lease == null) {
            log.debug("{} skipped: the lock '{}' on {} is held elsewhere", locked.where(), name, locks.backendName());
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
    private Lease acquire(LockedMethods.LockedMethod locked, String name, DistributedLock lock, LockClient locks) {
        Duration wait = locked.waitTime();
        CompletableFuture<Void> kept = releases.getObject().keptFor(name);
        if (kept != null) {
            // This thread still keeps the lock for an earlier call's lockAtLeastFor: taking it would
            // reenter it, so the call waits for that release like a call on any other thread would.
            long started = System.nanoTime();
            if (!released(kept, wait)) {
                reportTaken(locks, name, Duration.ofNanos(System.nanoTime() - started));
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
            throw new dev.baton.LockException("interrupted while waiting for a @Locked lock; nothing was acquired", e);
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
            releases.getObject().releaseAfter(name, lease, atLeast.minus(held));
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
