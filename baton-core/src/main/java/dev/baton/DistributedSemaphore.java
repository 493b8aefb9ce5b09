package dev.baton;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A named counting semaphore shared by every client of the same backend: at most {@link #permits()}
 * leases of this name are held at once, across threads, clients and processes. A cheap handle:
 * creating it does no I/O.
 *
 * <p>Each acquisition is a permit of its own, with its own {@link Lease}: renewed while it is held,
 * reported lost like a lock's, and carrying a fencing token that strictly increases per semaphore
 * name. Permits are not tied to threads and not reentrant: a thread that acquires twice holds two
 * permits, and any thread may close a lease. A holder that dies without closing its lease gives its
 * permit back when the lease time runs out.
 *
 * <p>The number of permits belongs to the name: the first acquisition on the backend records it, and
 * an acquisition that asks for another count fails with {@link LockConfigurationException} naming
 * both counts. A semaphore and a lock of the same name are independent.
 *
 * <p>Waiting is bounded by the caller's timeout and interruptible; an attempt that times out or is
 * interrupted leaves nothing behind on the backend.
 */
public interface DistributedSemaphore {

    /**
     * The semaphore's name.
     *
     * @return the name given to {@link LockClient#semaphore(String, int)}
     */
    String name();

    /**
     * How many permits the semaphore has.
     *
     * @return the count given to {@link LockClient#semaphore(String, int)}, at least 1
     */
    int permits();

    /**
     * Takes a permit, waiting as long as it takes.
     *
     * @return the permit's lease; close it to give the permit back
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockConfigurationException if the backend records another permit count for this name
     * @throws LockException wrapping an {@link InterruptedException} (with the interrupt flag set
     *     again) if the thread is interrupted while waiting
     */
    Lease acquire();

    /**
     * Takes a permit, waiting at most {@code timeout}.
     *
     * @param timeout the longest time to wait for a permit to come free; {@link Duration#ZERO} makes
     *     a single attempt
     * @return the permit's lease; close it to give the permit back
     * @throws LockTimeoutException if no permit came free within {@code timeout}
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockConfigurationException if {@code timeout} is null or negative, or the backend
     *     records another permit count for this name
     */
    Lease acquire(Duration timeout);

    /**
     * Takes a permit if one is free now; never waits.
     *
     * @return the permit's lease, or empty if every permit is held
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockConfigurationException if the backend records another permit count for this name
     */
    Optional<Lease> tryAcquire();

    /**
     * Takes a permit without holding a thread while it waits, waiting at most {@code timeout}; as
     * {@link DistributedLock#acquireAsync(Duration)} does for a lock.
     *
     * @param timeout the longest time to wait; {@link Duration#ZERO} makes a single attempt
     * @return a future completed with the permit's lease; or exceptionally with {@link
     *     LockTimeoutException}, {@link LockUnavailableException} or {@link
     *     LockConfigurationException}; cancelling it stops the wait
     * @throws LockConfigurationException if {@code timeout} is null or negative
     */
    CompletableFuture<Lease> acquireAsync(Duration timeout);

    /**
     * Takes a permit without holding a thread while it waits, as long as it takes.
     *
     * @return a future completed with the permit's lease; cancelling it stops the wait
     */
    CompletableFuture<Lease> acquireAsync();

    /**
     * Takes a permit if one is free now, without blocking the caller.
     *
     * @return a future completed with the permit's lease, or with empty if every permit is held
     */
    CompletableFuture<Optional<Lease>> tryAcquireAsync();
}
