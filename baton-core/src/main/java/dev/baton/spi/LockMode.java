package dev.baton.spi;

/** How a grant shares the lock with others. */
public enum LockMode {
    /** One holder at a time; excludes shared holders too. */
    EXCLUSIVE,
    /** Any number of shared holders together; excludes an exclusive holder. */
    SHARED
}
