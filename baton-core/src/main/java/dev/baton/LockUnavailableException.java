package dev.baton;

/**
 * The backend could not be reached, refused the request (for example wrong credentials), or did not
 * answer within the operation timeout. The lock state is unknown to this client; any partial
 * attempt has been abandoned on a best-effort basis.
 */
public class LockUnavailableException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockUnavailableException(String message) {
        super(message);
    }

    public LockUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
