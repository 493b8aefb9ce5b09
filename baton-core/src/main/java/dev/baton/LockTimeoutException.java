package dev.baton;

/**
 * The lock was not acquired within the time the caller allowed. Nothing is left behind on the
 * backend when this is thrown: the attempt has been cleaned up before the exception is raised.
 */
public class LockTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and no cause.
     *
     * @param message names the lock, the backend and the timeout
     */
    public LockTimeoutException(String message) {
        super(message);
    }
}
