package dev.baton;

/**
 * A lease is no longer valid: it expired before it could be renewed, another owner took the lock,
 * or the backend no longer knows the grant. Work protected by the lease must stop; the fencing
 * token lets the protected resource reject late writes.
 */
public class LockLostException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and no cause.
     *
     * @param message names the lock, the backend and why the lease was lost
     */
    public LockLostException(String message) {
        super(message);
    }

    /**
     * An exception with a message and the failure that led to it.
     *
     * @param message names the lock, the backend and why the lease was lost
     * @param cause the underlying failure (a driver's or client library's exception), or {@code
     *     null}
     */
    public LockLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
