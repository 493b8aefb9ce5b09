package dev.baton;

/**
 * A lease is no longer valid: it expired before it could be renewed, another owner took the lock,
 * or the backend no longer knows the grant. Work protected by the lease must stop; the fencing
 * token lets the protected resource reject late writes.
 */
public class LockLostException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockLostException(String message) {
        super(message);
    }

    public LockLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
