package dev.baton.quarkus;

import dev.baton.locked.LockedContext;
import dev.baton.locked.LockedTimeoutException;
import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a method of a CDI bean under a Baton lock: the lock is acquired before the method starts and
 * released when it returns or throws. Concurrent calls, in this JVM or any other using the same
 * backend, that resolve to the same {@link #name()} run one at a time; calls with different names
 * run together. The same annotation, with the same meaning, as the Spring Boot starters' {@code
 * dev.baton.spring.Locked}.
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
 * <p>A bad annotation (an unparsable name template or duration, a template naming a parameter the
 * method lacks, a private method, the annotation on a class, or a method returning a future, a
 * Mutiny {@code Uni}/{@code Multi} or a reactive publisher, which would release the lock before its
 * work ends) fails the application's startup with a message naming the method. Its interceptor runs
 * before (outside) {@code @Transactional}'s, so a transaction commits before its lock is released.
 * Annotate methods only: on a class the annotation is refused at startup.
 */
@Documented
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Locked {

    /**
     * The lock's name: text with expressions in {@code #{...}} over the method's arguments, in the
     * subset of Spring's SpEL that a name needs: a parameter by name ({@code #id}, needs the {@code
     * -parameters} compiler flag, which Quarkus' project template sets) or by position ({@code #p0},
     * {@code #a0}), followed by property steps ({@code #order.region}, {@code #order.region()}: a
     * record accessor, a public no-argument method, or a JavaBean getter). A name without {@code #{...}}
     * is used as it is. The resolved name follows Baton's rules (1 to 512 UTF-8 bytes, no control
     * characters); one that is empty fails the call with a {@link dev.baton.LockConfigurationException}.
     *
     * @return the name template
     */
    @Nonbinding
    String name();

    /**
     * How long to wait for the lock, as a Quarkus duration ({@code 5s}, {@code 250ms}, {@code PT5S});
     * {@code 0s} tries once. Empty (the default) waits as long as it takes, or, with {@link
     * #skipIfLocked()}, tries once.
     *
     * @return the longest wait, or empty for the default; past it the call fails with {@link
     *     LockedTimeoutException} (or returns quietly with {@link #skipIfLocked()}) and the method
     *     does not run
     */
    @Nonbinding
    String waitTime() default "";

    /**
     * Whether a call whose lock is held elsewhere returns quietly instead of failing: the method does
     * not run, the call returns nothing ({@code void}) or {@code Optional.empty()}, and the skip is
     * logged at debug and counted in the meters as an acquire that {@code timed_out}. For a job
     * scheduled on several nodes, where every node but one skipping a run is expected rather than an
     * error. The lock is tried once unless {@link #waitTime()} is set. Only for methods that return
     * {@code void} or {@link java.util.Optional}; any other fails startup.
     *
     * @return {@code true} to skip quietly when the lock is taken
     */
    @Nonbinding
    boolean skipIfLocked() default false;

    /**
     * The least time the lock stays held after the call started, as a duration ({@code 30s}, {@code
     * PT1M}); empty (the default) releases it when the method returns. A call that ends sooner
     * returns at once, and its lock is released that long after it was acquired (by a thread of the
     * extension; renewed meanwhile as usual), so a job triggered on several nodes whose clocks differ
     * a little, or a short job triggered again at once, runs only once in that time, as with
     * ShedLock's {@code lockAtLeastFor}. A later call on the thread that still keeps the lock finds it
     * taken (it does not reenter it). The lock is released sooner when the application stops. With
     * auto-renewal off ({@code baton.auto-renew=false}) it must not exceed the lease time.
     *
     * @return the least time the lock is held, or empty for none
     */
    @Nonbinding
    String lockAtLeastFor() default "";

    /**
     * The lease time for this lock, as a duration ({@code 30s}, {@code PT1M}); empty (the default)
     * takes the client's ({@code baton.lease-time}). With auto-renewal on, the lease is renewed while
     * the method runs; this is how long the lock outlives a holder that died.
     *
     * @return the lease time, or empty for the client's
     */
    @Nonbinding
    String leaseTime() default "";
}
