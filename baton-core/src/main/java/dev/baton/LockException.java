package dev.baton;

/**
 * Root of every exception Baton throws. All Baton exceptions are unchecked; each message names the
 * lock, the backend and what to do about it.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and no cause.
     *
     * @param message names the lock, the backend and what to do about it
     */
    public LockException(String message) {
        super(message);
    }

    /**
     * An exception with a message and the failure that led to it.
     *
     * @param message names the lock, the backend and what to do about it
     * @param cause the underlying failure (a driver's or client library's exception), or {@code
     *     null}
     */
    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
