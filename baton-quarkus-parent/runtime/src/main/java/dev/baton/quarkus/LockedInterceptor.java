package dev.baton.quarkus;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockTimeoutException;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * Acquires a {@link Locked} method's lock, runs the method, and releases the lock however it ends.
 * Its priority puts it outside {@code @Transactional}'s interceptor ({@code PLATFORM_BEFORE + 200}),
 * so that a transaction commits before its lock is released.
 */
@Locked(name = "")
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
class LockedInterceptor {

    @Inject
    LockClient client;

    @Inject
    LockedMethods methods;

    @AroundInvoke
    Object lock(InvocationContext invocation) throws Exception {
        LockedMethods.LockedMethod locked = methods.find(invocation.getMethod());
        String name = LockedMethods.resolveName(locked, invocation.getParameters());
        DistributedLock lock = locked.leaseTime() == null
                ? client.lock(name)
                : client.lock(name, client.options().withLeaseTime(locked.leaseTime()));
        Lease lease;
        if (locked.waitTime() == null) {
            lease = lock.acquire();
        } else {
            try {
                lease = lock.acquire(locked.waitTime());
            } catch (LockTimeoutException e) {
                throw new LockedTimeoutException(
                        name,
                        locked.where() + " did not run: " + e.getMessage() + " (waitTime = \"" + locked.waitTime()
                                + "\" on the annotation)");
            }
        }
        LockedContext.push(lease);
        try {
            return invocation.proceed();
        } finally {
            LockedContext.pop();
            lease.close();
        }
    }
}
