package dev.baton.spring;

import dev.baton.locked.LockedContext;
import dev.baton.locked.LockedTimeoutException;
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
 *       gets a {@link LockedTimeoutException} naming the resolved lock and the method; with {@link
 *       #skipIfLocked()}, the call returns quietly instead.
 *   <li>If the backend cannot be reached, the method does not run and the caller gets Baton's
 *       {@link dev.baton.LockUnavailableException}.
 *   <li>While the method runs, {@link LockedContext#currentLease()} and {@link
 *       LockedContext#fencingToken()} give its lease; hand the token to the resource you protect so
 *       that it can reject a writer whose lease was lost (a long pause can outlast any lease).
 *   <li>Calls are reentrant per thread: a nested call with the same name shares the outer grant.
 * </ul>
 *
 * <p>A scheduled job that runs on several nodes, once per run on one of them, as ShedLock's
 * {@code @SchedulerLock} does: the node that gets the lock runs the job and keeps the lock for at
 * least {@link #lockAtLeastFor()}, the others skip the run quietly.
 *
 * <pre>{@code
 * @Scheduled(cron = "0 * * * * *")
 * @Locked(name = "nightly-report", skipIfLocked = true, lockAtLeastFor = "30s")
 * public void report() { ... }
 * }</pre>
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
     * PT5S}); {@code 0s} tries once. (Not {@code wait}: that name is {@link Object#wait()}'s.) Empty
     * (the default) waits as long as it takes, or, with {@link #skipIfLocked()}, tries once.
     *
     * @return the longest wait, or empty for the default; past it the call fails with {@link
     *     LockedTimeoutException} (or returns quietly with {@link #skipIfLocked()}) and the method
     *     does not run
     */
    String waitTime() default "";

    /**
     * Whether a call whose lock is held elsewhere returns quietly instead of failing: the method does
     * not run, the call returns nothing ({@code void}) or {@code Optional.empty()}, and the skip is
     * logged at debug and counted in the meters as an acquire that {@code timed_out} ({@code
     * baton.lock.wait}). For a job scheduled on several nodes, where every node but one skipping a
     * run is expected rather than an error. The lock is tried once unless {@link #waitTime()} is set.
     * Only for methods that return {@code void} or {@link java.util.Optional}; any other fails
     * startup.
     *
     * @return {@code true} to skip quietly when the lock is taken
     */
    boolean skipIfLocked() default false;

    /**
     * The least time the lock stays held after the call started, as a duration ({@code 30s}, {@code
     * PT1M}); empty (the default) releases it when the method returns. A call that ends sooner
     * returns at once, and its lock is released that long after it was acquired (by a thread of the
     * starter; renewed meanwhile as usual), so a job triggered on several nodes whose clocks differ a
     * little, or a short job triggered again at once, runs only once in that time, as with
     * ShedLock's {@code lockAtLeastFor}. A later call on the thread that still keeps the lock finds it
     * taken (it does not reenter it). The lock is released sooner when the application stops (its
     * client releases every lease it holds). With auto-renewal off ({@code baton.auto-renew=false}) it
     * must not exceed the lease time, which would end the lease first.
     *
     * @return the least time the lock is held, or empty for none
     */
    String lockAtLeastFor() default "";

    /**
     * The lease time for this lock, as a duration ({@code 30s}, {@code PT1M}); empty (the default)
     * takes the client's ({@code baton.lease-time}). With auto-renewal on, the lease is renewed while
     * the method runs; this is how long the lock outlives a holder that died.
     *
     * @return the lease time, or empty for the client's
     */
    String leaseTime() default "";
}
