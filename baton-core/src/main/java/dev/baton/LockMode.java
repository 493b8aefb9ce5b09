package dev.baton;

/** How a grant shares the lock with others: the mode of a {@link LockKind}. */
public enum LockMode {
    /** One holder at a time; excludes shared holders too. */
    EXCLUSIVE,
    /** Any number of shared holders together; excludes an exclusive holder. */
    SHARED
}
