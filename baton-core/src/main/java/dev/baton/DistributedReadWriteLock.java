package dev.baton;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A named read/write lock: any number of readers hold the read lock together; a writer holds the
 * write lock alone, excluding readers and other writers. Both halves are {@link DistributedLock}s
 * with the same guarantees.
 *
 * <p>Upgrading (taking the write lock while holding the read lock) is refused with {@link
 * LockException} instead of deadlocking, as is downgrading on backends that cannot do it atomically.
 */
public interface DistributedReadWriteLock extends ReadWriteLock {

    /**
     * The lock's name.
     *
     * @return the name given to {@link LockClient#readWriteLock(String)}, shared by both halves
     */
    String name();

    @Override
    DistributedLock readLock();

    @Override
    DistributedLock writeLock();
}
