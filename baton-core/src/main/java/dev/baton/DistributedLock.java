package dev.baton;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A named lock shared by every client of the same backend. A cheap handle: creating it does no I/O.
 *
 * <p>Two ways to use it:
 *
 * <ul>
 *   <li>Lease style: {@link #acquire(Duration)} returns a {@link Lease} that may be closed from any
 *       thread.
 *   <li>{@link Lock} style: {@link #lock()} and {@link #unlock()} keep the JDK's thread-bound
 *       meaning; {@link #unlock()} by a thread that does not hold the lock throws {@link
 *       IllegalMonitorStateException}.
 * </ul>
 *
 * <p>Both are reentrant per thread: a thread that acquires while it already holds the lock gets the
 * same grant (same fencing token) with a higher hold count; only the last release reaches the
 * backend.
 *
 * <p>Waiting is interruptible where the JDK says so and always bounded by the caller's timeout; an
 * attempt that times out or is interrupted leaves nothing behind on the backend.
 *
 * <p><b>Asynchronous acquisition.</b> {@link #acquireAsync(Duration)}, {@link #acquireAsync()} and
 * {@link #tryAcquireAsync()} return at once and hold no thread while they wait: a waiter is an entry
 * in the client's timer and in the backend's line, woken by the backend (Redis pub/sub, ZooKeeper and
 * etcd watches, PostgreSQL LISTEN) or polled from one shared timer. Their guarantees are the blocking
 * API's, with two differences that follow from having no thread to tie them to:
 *
 * <ul>
 *   <li><b>Not reentrant.</b> Each completed future is a lease of its own, with its own fencing
 *       token, and its acquisition waits behind every holder, this client's own threads and leases
 *       included: an asynchronous flow that asks for a lock it already holds waits for itself until
 *       its timeout. Release it with {@link Lease#close()} or {@link Lease#releaseAsync()} from any
 *       thread.
 *   <li><b>Cancellation instead of interrupts.</b> Cancelling the future (or completing it from
 *       outside, as {@link CompletableFuture#orTimeout} does) stops the wait and leaves nothing
 *       behind on the backend; a grant that arrives after the cancel is released, never leaked.
 * </ul>
 *
 * <p>Fairness, fencing and loss detection are the same for both APIs: waiters of one client line up
 * in arrival order whichever API they came from, and {@link Lease#onLost} reports a loss to an
 * asynchronous holder as to any other. The futures complete on a Baton thread, so a dependent stage
 * added with {@code thenApply} or the like runs there and must not block; use the {@code *Async}
 * variants with an executor of yours for blocking work.
 */
public interface DistributedLock extends Lock {

    /**
     * The lock's name.
     *
     * @return the name given to {@link LockClient#lock(String)}, the same for every client of it
     */
    String name();

    /**
     * Acquires the lock, waiting as long as it takes.
     *
     * @return the lease, valid until closed or lost; close it to release the lock
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockException wrapping an {@link InterruptedException} (with the interrupt flag set
     *     again) if the thread is interrupted while waiting
     */
    Lease acquire();

    /**
     * Acquires the lock, waiting at most {@code timeout}.
     *
     * @param timeout the longest time to wait for another holder to release; {@link Duration#ZERO}
     *     makes a single attempt
     * @return the lease, valid until closed or lost; close it to release the lock
     * @throws LockTimeoutException if the lock is not acquired within {@code timeout}
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockConfigurationException if {@code timeout} is null or negative
     */
    Lease acquire(Duration timeout);

    /**
     * Acquires the lock if it is free now; never waits for another holder.
     *
     * @return the lease if the lock was free (or already held by this thread), otherwise empty
     * @throws LockUnavailableException if the backend cannot be reached
     */
    Optional<Lease> tryAcquire();

    /**
     * Acquires the lock without holding a thread while it waits, waiting at most {@code timeout}.
     * Not reentrant (see the class description).
     *
     * @param timeout the longest time to wait; {@link Duration#ZERO} makes a single attempt
     * @return a future completed with the lease; or exceptionally with {@link LockTimeoutException}
     *     when the time runs out, {@link LockUnavailableException} when the backend cannot be reached
     *     or the client is closed; cancelling it stops the wait
     * @throws LockConfigurationException if {@code timeout} is null or negative
     */
    CompletableFuture<Lease> acquireAsync(Duration timeout);

    /**
     * Acquires the lock without holding a thread while it waits, as long as it takes (until the
     * future is cancelled or the client closed). Not reentrant (see the class description).
     *
     * @return a future completed with the lease, or exceptionally with {@link
     *     LockUnavailableException}; cancelling it stops the wait
     */
    CompletableFuture<Lease> acquireAsync();

    /**
     * Acquires the lock if it is free now, without blocking the caller; never waits for another
     * holder. Not reentrant (see the class description).
     *
     * @return a future completed with the lease, or with empty if another owner holds the lock; or
     *     exceptionally with {@link LockUnavailableException}
     */
    CompletableFuture<Optional<Lease>> tryAcquireAsync();

    /**
     * Whether the current thread holds this lock (through {@link #lock()} or {@link #acquire()}).
     *
     * @return {@code true} if the current thread holds it; answered locally, without I/O
     */
    boolean isHeldByCurrentThread();

    /**
     * How many times the current thread holds this lock.
     *
     * @return the hold count, 0 when the current thread does not hold it; answered locally
     */
    int holdCount();

    /**
     * Conditions are not supported: a distributed lock cannot atomically release and wait.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    default Condition newCondition() {
        throw new UnsupportedOperationException("Baton lock '" + name()
                + "': conditions are not supported by distributed locks; use a separate signalling"
                + " mechanism (a queue or a notification) and re-acquire the lock");
    }
}
