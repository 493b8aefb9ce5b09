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
     * @throws LockConfigurationException if the name is null, empty, longer than 512 UTF-8 bytes or
     *     contains control characters
     */
    DistributedLock lock(String name);

    /** As {@link #lock(String)} with options that override this client's. */
    DistributedLock lock(String name, LockOptions options);

    /**
     * A handle on the read/write lock called {@code name}. No I/O.
     *
     * @throws LockConfigurationException for an invalid name, as {@link #lock(String)}
     */
    DistributedReadWriteLock readWriteLock(String name);

    /** As {@link #readWriteLock(String)} with options that override this client's. */
    DistributedReadWriteLock readWriteLock(String name, LockOptions options);

    /** This client's options. */
    LockOptions options();

    /** A short description of the backend, as used in messages, e.g. {@code jdbc-table (PostgreSQL)}. */
    String backendName();

    @Override
    void close();
}
