package dev.baton;

/**
 * A connection to one lock backend. It owns its connections, its renewal scheduler and its waiters.
 * Thread-safe; create one per application and share it.
 *
 * <p>{@link #close()} releases every lease this client still holds, stops renewal, fails pending
 * waiters with {@link LockUnavailableException} and leaves no threads behind.
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
