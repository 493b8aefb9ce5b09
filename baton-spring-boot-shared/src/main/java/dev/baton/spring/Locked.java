package dev.baton.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a method of a Spring bean under a Baton lock: the lock is acquired before the method starts
 * and released when it returns or throws. Concurrent calls, in this JVM or any other using the same
 * backend, that resolve to the same {@link #name()} run one at a time; calls with different names
 * run together.
 *
 * <pre>{@code
 * @Locked(name = "invoice-#{#id}", waitTime = "5s")
 * public void bill(long id) {
 *     store.write(id, LockedContext.fencingToken());
 * }
 * }</pre>
 *
 * <p>Guarantees and failures:
 *
 * <ul>
 *   <li>If the lock is not acquired within {@link #waitTime()}, the method does not run and the caller
 *       gets a {@link LockedTimeoutException} naming the resolved lock and the method.
 *   <li>If the backend cannot be reached, the method does not run and the caller gets Baton's
 *       {@link dev.baton.LockUnavailableException}.
 *   <li>While the method runs, {@link LockedContext#currentLease()} and {@link
 *       LockedContext#fencingToken()} give its lease; hand the token to the resource you protect so
 *       that it can reject a writer whose lease was lost (a long pause can outlast any lease).
 *   <li>Calls are reentrant per thread: a nested call with the same name shares the outer grant.
 * </ul>
 *
 * <p>A bad annotation (an unparsable name template or duration, or a method returning a future or a
 * reactive publisher, which would release the lock before its work ends) fails the application's
 * startup with a message naming the method. As with {@code @Transactional}, only calls through the
 * Spring proxy are locked, not calls from inside the same bean.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Locked {

    /**
     * The lock's name: text with SpEL expressions in {@code #{...}} over the method's arguments, by
     * parameter name ({@code #id}, needs {@code -parameters}, which Spring Boot's build plugins set)
     * or by position ({@code #p0}, {@code #a0}); {@code @bean} refers to a bean. A name without
     * an expression ({@code #{...}}) is used as it is. The resolved name follows Baton's rules (1 to
     * 512 UTF-8 bytes, no control characters); one that is empty or {@code null} fails the call with
     * a {@link dev.baton.LockConfigurationException}.
     *
     * @return the name template
     */
    String name();

    /**
     * How long to wait for the lock, as a Spring Boot duration ({@code 5s}, {@code 250ms}, {@code
     * PT5S}); {@code 0s} tries once. (Not {@code wait}: that name is {@link Object#wait()}'s.) Empty (the default) waits as long as it takes.
     *
     * @return the longest wait, or empty to wait without limit; past it the call fails with {@link
     *     LockedTimeoutException} and the method does not run
     */
    String waitTime() default "";

    /**
     * The lease time for this lock, as a duration ({@code 30s}, {@code PT1M}); empty (the default)
     * takes the client's ({@code baton.lease-time}). With auto-renewal on, the lease is renewed while
     * the method runs; this is how long the lock outlives a holder that died.
     *
     * @return the lease time, or empty for the client's
     */
    String leaseTime() default "";
}
