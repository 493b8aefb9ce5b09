package dev.baton.spring;

import dev.baton.LockTimeoutException;

/**
 * A {@link Locked} method did not run because its lock was not acquired within the annotation's
 * {@code waitTime}. Nothing is left behind on the backend. The message names the method, the resolved
 * lock and the backend.
 */
public class LockedTimeoutException extends LockTimeoutException {
    private static final long serialVersionUID = 1L;

    private final String lockName;

    public LockedTimeoutException(String lockName, String message) {
        super(message);
        this.lockName = lockName;
    }

    /** The lock's name as resolved from the annotation's template for this call. */
    public String lockName() {
        return lockName;
    }
}
