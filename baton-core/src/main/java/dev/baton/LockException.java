package dev.baton;

/**
 * Root of every exception Baton throws. All Baton exceptions are unchecked; each message names the
 * lock, the backend and what to do about it.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LockException(String message) {
        super(message);
    }

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
