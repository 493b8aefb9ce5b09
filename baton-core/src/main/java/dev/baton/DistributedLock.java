package dev.baton;

import java.time.Duration;
import java.util.Optional;
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
