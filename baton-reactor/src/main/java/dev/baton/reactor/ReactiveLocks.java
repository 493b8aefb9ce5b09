package dev.baton.reactor;

import dev.baton.DistributedLock;
import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import dev.baton.LockConfigurationException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Baton's locks and semaphores for Project Reactor, on the asynchronous API ({@link
 * DistributedLock#acquireAsync(Duration)}): a {@link Mono} of a {@link Lease}, and {@code withLock},
 * which acquires, runs your {@code Mono} or {@code Flux}, and releases when it completes, fails or is
 * cancelled.
 *
 * <pre>{@code
 * Mono<Receipt> paid = ReactiveLocks.withLock(client.lock("invoice-42"), Duration.ofSeconds(5),
 *         lease -> payments.charge(invoice, lease.fencingToken()));
 * }</pre>
 *
 * <p>Why static methods on the core's handles and not a reactive lock type: a {@link DistributedLock}
 * (a plain lock, either half of a read/write lock, a multi-lock) or a {@link DistributedSemaphore}
 * already is the handle, cheap and without I/O, and its asynchronous API does the waiting; all this
 * adapter adds is Reactor's laziness, cancellation and resource handling, so it is six functions, not
 * a second API to keep in step with the first.
 *
 * <p>Guarantees, the asynchronous API's:
 *
 * <ul>
 *   <li><b>Lazy, one lease per subscription.</b> Nothing happens until a subscriber comes; each
 *       subscription is an acquisition of its own with a lease of its own, so {@code retry()} and
 *       {@code repeat()} acquire again.
 *   <li><b>No thread waits.</b> A waiting subscription is an entry in the client's timer and in the
 *       backend's line, woken by the backend or polled from a shared timer (except where the backend
 *       waits with a blocking call, on a bounded pool of its own: see the docs' async page).
 *   <li><b>Cancelling stops the wait and leaves nothing behind.</b> A cancel (a {@code timeout()},
 *       {@code take}, a disposed subscription, an HTTP caller that went away) while waiting cancels the
 *       acquisition: it leaves the backend's line, and a grant that arrives after the cancel is
 *       released, never handed out and never leaked.
 *   <li><b>Not reentrant.</b> Each lease is its own, with its own fencing token: a flow that asks
 *       for a lock it already holds waits for itself until its timeout.
 *   <li><b>Released once the work ends.</b> {@code withLock} releases with {@link
 *       Lease#releaseAsync()} when the work completes, fails or is cancelled; completion and failure
 *       are passed on after the backend answered the release, so the lock is free for the next
 *       owner by then. A cancel releases in the background.
 *   <li><b>Loss</b> is told as for any lease: {@link Lease#onLost}, {@link Lease#isValid()}, {@link
 *       Lease#checkValid()}. The work is not stopped for it: check the lease, and send its {@link
 *       Lease#fencingToken()} with every write.
 * </ul>
 *
 * <p><b>Threads.</b> The lease, and so the subscription to the work, arrives on a Baton thread, and
 * {@code withLock}'s completion on the thread that finished the release. Those threads serve every
 * asynchronous acquisition of the client and must not block: put blocking work behind {@code
 * publishOn(Schedulers.boundedElastic())} or {@code subscribeOn}.
 *
 * <p><b>Failures</b> arrive as {@code onError}: {@link dev.baton.LockTimeoutException} when the time
 * runs out (naming the lock), {@link dev.baton.LockUnavailableException} when the backend cannot be
 * reached or the client is closed, {@link LockConfigurationException} when the backend refuses the
 * request (a semaphore's permit count that differs from the backend's). A null argument or a negative
 * timeout is refused at once, when the {@code Mono} is made.
 */
public final class ReactiveLocks {
    private ReactiveLocks() {}

    /**
     * A lease of {@code lock}, acquired when subscribed to and waiting at most {@code timeout}. The
     * subscriber owns the lease it receives: close or {@link Lease#releaseAsync() release} it, or use
     * {@link #withLock} instead.
     *
     * @param lock a lock, either half of a read/write lock, or a multi-lock
     * @param timeout the longest time to wait for another holder; {@link Duration#ZERO} makes a single
     *     attempt
     * @return a {@code Mono} that emits the lease, or fails with {@link
     *     dev.baton.LockTimeoutException} when the time runs out; cancelling it stops the wait
     * @throws NullPointerException if {@code lock} is null
     * @throws LockConfigurationException if {@code timeout} is null or negative
     */
    public static Mono<Lease> acquire(DistributedLock lock, Duration timeout) {
        Objects.requireNonNull(lock, "lock");
        checkTimeout(lock, timeout);
        return lease(() -> lock.acquireAsync(timeout));
    }

    /**
     * A permit of {@code semaphore}, taken when subscribed to and waiting at most {@code timeout}; as
     * {@link #acquire(DistributedLock, Duration)}.
     *
     * @param semaphore the semaphore
     * @param timeout the longest time to wait for a permit; {@link Duration#ZERO} makes a single attempt
     * @return a {@code Mono} that emits the permit's lease; cancelling it stops the wait
     * @throws NullPointerException if {@code semaphore} is null
     * @throws LockConfigurationException if {@code timeout} is null or negative
     */
    public static Mono<Lease> acquire(DistributedSemaphore semaphore, Duration timeout) {
        Objects.requireNonNull(semaphore, "semaphore");
        checkTimeout(semaphore, timeout);
        return lease(() -> semaphore.acquireAsync(timeout));
    }

    /**
     * Acquires {@code lock}, runs {@code work} with the lease, and releases the lease when the work
     * completes, fails or is cancelled. The work is subscribed to only once the lock is held; its
     * value, completion or error is passed on once the release has been answered.
     *
     * @param lock a lock, either half of a read/write lock, or a multi-lock
     * @param timeout the longest time to wait for the lock
     * @param work makes the work from the lease (whose {@link Lease#fencingToken()} the protected
     *     resource should check); called on a Baton thread, and must not block
     * @param <T> the work's value
     * @return the work's outcome; or {@link dev.baton.LockTimeoutException} and the like, without
     *     running the work, when the lock was not acquired
     * @throws NullPointerException if {@code lock} or {@code work} is null
     * @throws LockConfigurationException if {@code timeout} is null or negative
     */
    public static <T> Mono<T> withLock(
            DistributedLock lock, Duration timeout, Function<? super Lease, ? extends Mono<? extends T>> work) {
        Objects.requireNonNull(work, "work");
        return Mono.usingWhen(
                acquire(lock, timeout), work, ReactiveLocks::release, ReactiveLocks::release, ReactiveLocks::release);
    }

    /**
     * As {@link #withLock(DistributedLock, Duration, Function)} for work of many values: the lock is
     * held until the {@code Flux} completes, fails or is cancelled.
     *
     * @param lock a lock, either half of a read/write lock, or a multi-lock
     * @param timeout the longest time to wait for the lock
     * @param work makes the work from the lease; called on a Baton thread, and must not block
     * @param <T> the work's values
     * @return the work's values and outcome
     * @throws NullPointerException if {@code lock} or {@code work} is null
     * @throws LockConfigurationException if {@code timeout} is null or negative
     */
    public static <T> Flux<T> withLockMany(
            DistributedLock lock, Duration timeout, Function<? super Lease, ? extends Publisher<? extends T>> work) {
        Objects.requireNonNull(work, "work");
        return Flux.usingWhen(
                acquire(lock, timeout), work, ReactiveLocks::release, ReactiveLocks::release, ReactiveLocks::release);
    }

    /**
     * As {@link #withLock(DistributedLock, Duration, Function)} with a permit of {@code semaphore}.
     *
     * @param semaphore the semaphore
     * @param timeout the longest time to wait for a permit
     * @param work makes the work from the permit's lease; called on a Baton thread, and must not block
     * @param <T> the work's value
     * @return the work's outcome
     * @throws NullPointerException if {@code semaphore} or {@code work} is null
     * @throws LockConfigurationException if {@code timeout} is null or negative
     */
    public static <T> Mono<T> withPermit(
            DistributedSemaphore semaphore,
            Duration timeout,
            Function<? super Lease, ? extends Mono<? extends T>> work) {
        Objects.requireNonNull(work, "work");
        return Mono.usingWhen(
                acquire(semaphore, timeout),
                work,
                ReactiveLocks::release,
                ReactiveLocks::release,
                ReactiveLocks::release);
    }

    /**
     * As {@link #withLockMany(DistributedLock, Duration, Function)} with a permit of {@code semaphore}.
     *
     * @param semaphore the semaphore
     * @param timeout the longest time to wait for a permit
     * @param work makes the work from the permit's lease; called on a Baton thread, and must not block
     * @param <T> the work's values
     * @return the work's values and outcome
     * @throws NullPointerException if {@code semaphore} or {@code work} is null
     * @throws LockConfigurationException if {@code timeout} is null or negative
     */
    public static <T> Flux<T> withPermitMany(
            DistributedSemaphore semaphore,
            Duration timeout,
            Function<? super Lease, ? extends Publisher<? extends T>> work) {
        Objects.requireNonNull(work, "work");
        return Flux.usingWhen(
                acquire(semaphore, timeout),
                work,
                ReactiveLocks::release,
                ReactiveLocks::release,
                ReactiveLocks::release);
    }

    /** The acquisition, started at subscription; its lease is handed on or released, never dropped. */
    private static Mono<Lease> lease(Supplier<CompletableFuture<Lease>> acquisition) {
        return new LeaseMono(acquisition);
    }

    /** Releases without blocking; never fails ({@link Lease#releaseAsync()} logs instead). */
    private static Mono<Void> release(Lease lease) {
        // suppressCancel: cancelling the wait for the answer must not look like a failed release
        return Mono.fromFuture(lease::releaseAsync, true);
    }

    private static Mono<Void> release(Lease lease, Throwable workFailure) {
        return release(lease);
    }

    private static void checkTimeout(Object handle, Duration timeout) {
        if (timeout == null) {
            throw new LockConfigurationException("Baton " + handle
                    + ": the timeout must not be null; give the longest time to wait (Duration.ZERO tries once)");
        }
        if (timeout.isNegative()) {
            throw new LockConfigurationException("Baton " + handle + ": the timeout must not be negative but was "
                    + timeout + "; use Duration.ZERO to try once");
        }
    }
}
