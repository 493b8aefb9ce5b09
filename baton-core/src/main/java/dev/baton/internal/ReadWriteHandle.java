package dev.baton.internal;

import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;

/** The two halves of a read/write lock: shared mode for readers, exclusive mode for the writer. */
record ReadWriteHandle(String name, DistributedLock readLock, DistributedLock writeLock)
        implements DistributedReadWriteLock {}
