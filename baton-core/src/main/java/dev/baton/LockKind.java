package dev.baton;

/**
 * What kind of lock the caller asked for, as the core passes it to a backend in every {@link
 * dev.baton.spi.LockRequest}. The {@link LockMode} follows from the kind; the kind adds which API the request came
 * from, so that a backend whose peers give each kind its own wire form (ZooKeeper: Curator's mutex
 * nodes and its read/write nodes) can write the form of the matching peer recipe.
 *
 * <p>A backend that has one form for every kind of the same mode ignores the kind and reads {@link
 * dev.baton.spi.LockRequest#mode()}. Whatever forms a backend writes, its grants of different kinds on one name
 * must still exclude each other as their modes say: a {@link #MUTEX} holder and a {@link #WRITE}
 * waiter of the same name never hold together. A backend that writes one form per kind refuses a
 * kind it has no form for with {@link UnsupportedOperationException} rather than guessing one.
 *
 * <p>{@link #PERMIT} is not a lock: a semaphore's permits live in a namespace of their own (a
 * semaphore and a lock of the same name never meet), and the core sends a permit request only to a
 * backend whose {@link dev.baton.spi.LockBackend#supportsPermits()} says it has a form for them, so a backend
 * that reads only the mode never mistakes a permit for a read lock.
 */
public enum LockKind {
    /** {@code LockClient.lock(name)}: a plain exclusive lock. */
    MUTEX(LockMode.EXCLUSIVE),
    /** The read side of {@code LockClient.readWriteLock(name)}: shared with other readers. */
    READ(LockMode.SHARED),
    /** The write side of {@code LockClient.readWriteLock(name)}: exclusive. */
    WRITE(LockMode.EXCLUSIVE),
    /**
     * One permit of {@code LockClient.semaphore(name, permits)}: held together with at most {@link
     * dev.baton.spi.LockRequest#permits()} - 1 other permits of the same name. Not reentrant: every acquisition is
     * a permit of its own.
     */
    PERMIT(LockMode.SHARED);

    private final LockMode mode;

    LockKind(LockMode mode) {
        this.mode = mode;
    }

    /**
     * How a grant of this kind shares the lock with other grants of the same name.
     *
     * @return {@link LockMode#SHARED} for {@link #READ} and {@link #PERMIT}, {@link
     *     LockMode#EXCLUSIVE} otherwise
     */
    public LockMode mode() {
        return mode;
    }
}
