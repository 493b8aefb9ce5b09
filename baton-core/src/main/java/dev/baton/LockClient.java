package dev.baton;

/**
 * A connection to one lock backend. It owns its connections, its renewal scheduler and its waiters.
 * Thread-safe; create one per application and share it.
 *
 * <p>{@link #close()} resigns its {@linkplain #leadership(String) leaderships}, releases every lease
 * this client still holds, stops renewal, fails pending waiters with {@link
 * LockUnavailableException} and leaves no threads behind.
 */
public interface LockClient extends AutoCloseable {

    /**
     * A handle on the exclusive lock called {@code name}, with this client's options. No I/O.
     *
     * @param name the lock's name, shared by every client of the backend that locks it
     * @return a cheap handle; handles with the same name share one lock
     * @throws LockConfigurationException if the name is null, empty, longer than 512 UTF-8 bytes or
     *     contains control characters
     */
    DistributedLock lock(String name);

    /**
     * As {@link #lock(String)} with options that override this client's.
     *
     * @param name the lock's name, shared by every client of the backend that locks it
     * @param options lease time, renewal, timeouts and listeners for this lock only
     * @return a cheap handle that uses {@code options}
     * @throws LockConfigurationException for an invalid name, as {@link #lock(String)}
     */
    DistributedLock lock(String name, LockOptions options);

    /**
     * A handle on the read/write lock called {@code name}. No I/O.
     *
     * @param name the lock's name, shared by every client of the backend that locks it
     * @return a handle whose read lock is shared and whose write lock is exclusive
     * @throws LockConfigurationException for an invalid name, as {@link #lock(String)}
     */
    DistributedReadWriteLock readWriteLock(String name);

    /**
     * As {@link #readWriteLock(String)} with options that override this client's.
     *
     * @param name the lock's name, shared by every client of the backend that locks it
     * @param options lease time, renewal, timeouts and listeners for this lock only
     * @return a handle whose read lock is shared and whose write lock is exclusive
     * @throws LockConfigurationException for an invalid name, as {@link #lock(String)}
     */
    DistributedReadWriteLock readWriteLock(String name, LockOptions options);

    /**
     * A handle on the semaphore called {@code name} with {@code permits} permits. No I/O.
     *
     * @param name the semaphore's name, shared by every client of the backend that uses it;
     *     independent of a lock of the same name
     * @param permits how many leases of this name may be held at once; every client must give the
     *     same count for one name
     * @return a cheap handle
     * @throws LockConfigurationException for an invalid name (as {@link #lock(String)}), a count
     *     below 1, or a backend that has no semaphores
     */
    DistributedSemaphore semaphore(String name, int permits);

    /**
     * As {@link #semaphore(String, int)} with options that override this client's.
     *
     * @param name the semaphore's name
     * @param permits how many leases of this name may be held at once
     * @param options lease time, renewal, timeouts and listeners for this semaphore only
     * @return a cheap handle that uses {@code options}
     * @throws LockConfigurationException as {@link #semaphore(String, int)}
     */
    DistributedSemaphore semaphore(String name, int permits, LockOptions options);

    /**
     * A handle on several exclusive locks taken together, all or nothing. No I/O.
     *
     * <p>The locks are taken one by one in a canonical order (names ascending by {@link
     * String#compareTo}), whatever order they are given in, so two clients that ask for overlapping
     * sets never deadlock. An acquisition that cannot take every lock within its timeout releases
     * the ones it took and fails. The {@link Lease} it returns releases every lock when closed; it is
     * valid while every member is, and the loss of any member is reported as the loss of the whole
     * (to {@link Lease#onLost}). Its {@link Lease#fencingToken()} is the first name's; {@link
     * Lease#members()} gives each name's lease and token. Each member is the lock {@link
     * #lock(String)} would give, reentrant per thread as locks are.
     *
     * @param names one or more distinct lock names
     * @return a handle whose {@link DistributedLock#name()} lists the names in canonical order
     * @throws LockConfigurationException if a name is invalid, a name repeats, or no name
     *     is given
     */
    DistributedLock multiLock(String... names);

    /**
     * As {@link #multiLock(String...)} with options that override this client's.
     *
     * @param names one or more distinct lock names
     * @param options lease time, renewal, timeouts and listeners for every member lock
     * @return a handle that uses {@code options}
     * @throws LockConfigurationException as {@link #multiLock(String...)}
     */
    DistributedLock multiLock(java.util.Collection<String> names, LockOptions options);

    /**
     * A candidate in the leader election called {@code name}, with this client's options. No I/O:
     * the candidate joins the election when {@link Leadership#start()} is called.
     *
     * @param name the election's name, which is also the name of the lock its leader holds
     * @return a new candidacy, not started; close it to resign
     * @throws LockConfigurationException for an invalid name (as {@link #lock(String)}), or if this
     *     client's options turn auto-renewal off (a leader's lease must be renewed)
     * @throws LockUnavailableException if this client is closed
     */
    Leadership leadership(String name);

    /**
     * As {@link #leadership(String)} with options that override this client's (a shorter lease time
     * for a faster take-over after a leader dies, say).
     *
     * @param name the election's name, which is also the name of the lock its leader holds
     * @param options lease time, timeouts and lock listeners for the leader's lease; auto-renewal must
     *     be on
     * @return a new candidacy, not started
     * @throws LockConfigurationException as {@link #leadership(String)}
     * @throws LockUnavailableException if this client is closed
     */
    Leadership leadership(String name, LockOptions options);

    /**
     * This client's options.
     *
     * @return the options given when the client was created
     */
    LockOptions options();

    /**
     * A short description of the backend, as used in messages.
     *
     * @return for example {@code jdbc-table (PostgreSQL)}
     */
    String backendName();

    @Override
    void close();
}
