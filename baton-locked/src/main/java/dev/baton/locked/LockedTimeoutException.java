package dev.baton.locked;

import dev.baton.LockTimeoutException;

/**
 * A {@code @Locked} method did not run because its lock was not acquired within the annotation's
 * {@code waitTime}. Nothing is left behind on the backend. The message names the method, the resolved
 * lock and the backend. Thrown by the Spring Boot starters and the Quarkus extension alike.
 */
public class LockedTimeoutException extends LockTimeoutException {
    private static final long serialVersionUID = 1L;

    /** The lock's name as resolved for the call; part of the serialized form. */
    private final String lockName;

    /**
     * An exception for a call of a {@code @Locked} method that gave up waiting.
     *
     * @param lockName the lock's name as resolved for this call
     * @param message names the method, the lock and the backend
     */
    public LockedTimeoutException(String lockName, String message) {
        super(message);
        this.lockName = lockName;
    }

    /**
     * The lock's name as resolved from the annotation's template for this call.
     *
     * @return the resolved name
     */
    public String lockName() {
        return lockName;
    }
}
