package dev.baton.spring;

import dev.baton.LockClient;
import dev.baton.locked.internal.LockedCall;
import dev.baton.locked.internal.LockedMethod;
import dev.baton.locked.internal.LockedReleases;
import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.expression.Expression;

/**
 * Runs a {@link Locked} method's call under its lock: finds the method's parsed annotation behind the
 * proxy, resolves the name with SpEL, and hands the call to {@link LockedCall} (wait, skip, run,
 * release at once or after the rest of its {@link Locked#lockAtLeastFor()}), as Quarkus' interceptor
 * does.
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
        LockedMethod<Expression> locked = methods.find(method, targetClass);
        if (locked == null) {
            return invocation.proceed();
        }
        String name = methods.resolveName(locked, method, target, invocation.getArguments());
        return LockedCall.call(log, client.getObject(), releases.getObject(), locked, name, invocation::proceed);
    }
}
