package dev.baton;

import java.util.List;
import java.util.Optional;

/**
 * An operator's view of a backend's locks: who holds what ({@link #locks}, {@link #status}), and
 * breaking a lock whose holder is stuck or gone while its lease still runs ({@link #forceRelease}).
 * Made by {@link Baton#admin(String)}; the {@code baton locks}, {@code baton status} and {@code baton
 * release --force} commands are built on it. It takes no locks itself.
 *
 * <p>Every call is bounded by the operation timeout of the options it was made with and fails with
 * {@link LockUnavailableException} when the backend cannot be asked in time, or with {@link
 * UnsupportedOperationException} naming the backend when it cannot list or break its locks.
 */
public interface LockAdmin extends AutoCloseable {

    /**
     * The backend's name, as its clients report it.
     *
     * @return for example {@code redis (127.0.0.1:6379)}
     */
    String backendName();

    /**
     * Every lock, read/write lock and semaphore held whose name starts with {@code prefix}, with its
     * holders (owner id, description, fencing token, expiry) and, where the backend can tell, its
     * waiters. A snapshot: holders come and go while it is read. See {@link
     * dev.baton.spi.LockBackend#list} for how each backend finds them.
     *
     * @param prefix the start of the names to list; empty for all
     * @return the held locks and semaphores, sorted by name and kind
     * @throws LockConfigurationException if {@code prefix} is null
     */
    List<LockInfo> locks(String prefix);

    /**
     * How {@link #locks} finds the locks on this backend, for people reading its output.
     *
     * @return for example {@code "scans the keys baton:* in batches (SCAN)"}; empty when the backend
     *     does not say
     */
    String listingMethod();

    /**
     * What the backend knows of one lock (not a semaphore of the same name: {@link #locks} lists
     * those).
     *
     * @param name the lock name
     * @return its holders, or empty if it is free
     * @throws LockConfigurationException if {@code name} is not a valid lock name
     */
    Optional<LockInfo> status(String name);

    /**
     * Breaks every grant of {@code name}: its lock (both sides of a read/write lock) and its
     * semaphore's permits. The next holder's fencing token is higher than every broken holder's, each
     * broken holder is told at its next renewal at the latest ({@link Lease#onLost} and {@link
     * Lease#isValid()} false), and a warning is logged naming what was broken and by whom.
     *
     * @param name the lock or semaphore name
     * @return what was broken, with its holders; empty if nothing of {@code name} was held
     * @throws LockConfigurationException if {@code name} is not a valid lock name
     */
    List<LockInfo> forceRelease(String name);

    /**
     * Breaks the grant of one holder of {@code name}, as {@link #forceRelease(String)} does for all:
     * one stuck permit of a semaphore, say, while the other permits stay held.
     *
     * @param name the lock or semaphore name
     * @param ownerId the holder's owner id, as {@link #locks} reports it
     * @return what was broken; empty if that owner held nothing of {@code name}
     * @throws LockConfigurationException if {@code name} is not a valid lock name or {@code ownerId} is
     *     null or blank
     */
    List<LockInfo> forceRelease(String name, String ownerId);

    /** Closes the backend's connections. Idempotent. */
    @Override
    void close();
}
