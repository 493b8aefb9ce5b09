package dev.baton.quarkus;

import dev.baton.LockClient;
import dev.baton.locked.internal.LockedCall;
import dev.baton.locked.internal.LockedMethod;
import dev.baton.locked.internal.LockedReleases;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link Locked} method's call under its lock: finds the method's parsed annotation, resolves
 * the name, and hands the call to {@link LockedCall} (wait, skip, run, release at once or after the
 * rest of its {@link Locked#lockAtLeastFor()}), as the Spring starters' interceptor does. Its priority
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
        LockedMethod<NameTemplate> locked = methods.find(invocation.getMethod());
        String name = LockedMethods.resolveName(locked, invocation.getParameters());
        return LockedCall.call(log, client, releases, locked, name, invocation::proceed);
    }
}
