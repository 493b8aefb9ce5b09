package dev.baton.spring;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockTimeoutException;
import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;

/** Acquires a {@link Locked} method's lock, runs the method, and releases the lock however it ends. */
final class LockedMethodInterceptor implements MethodInterceptor {

    private final ObjectProvider<LockClient> client;
    private final LockedMethods methods;

    LockedMethodInterceptor(ObjectProvider<LockClient> client, LockedMethods methods) {
        this.client = client;
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
        DistributedLock lock = locked.leaseTime() == null
                ? locks.lock(name)
                : locks.lock(name, locks.options().withLeaseTime(locked.leaseTime()));
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
