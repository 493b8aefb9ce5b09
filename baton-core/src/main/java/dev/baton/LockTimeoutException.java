package dev.baton;

/**
 * The lock was not acquired within the time the caller allowed. Nothing is left behind on the
 * backend when this is thrown: the attempt has been cleaned up before the exception is raised.
 */
public class LockTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockTimeoutException(String message) {
        super(message);
    }
}
