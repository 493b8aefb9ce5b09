package dev.baton;

/**
 * The backend could not be reached, refused the request (for example wrong credentials), or did not
 * answer within the operation timeout. The lock state is unknown to this client; any partial
 * attempt has been abandoned on a best-effort basis.
 */
public class LockUnavailableException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and no cause.
     *
     * @param message names the lock or operation, the backend and what failed
     */
    public LockUnavailableException(String message) {
        super(message);
    }

    /**
     * An exception with a message and the failure that led to it.
     *
     * @param message names the lock or operation, the backend and what failed
     * @param cause the underlying failure (a driver's or client library's exception), or {@code
     *     null}
     */
    public LockUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
