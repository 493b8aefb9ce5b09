package dev.baton;

/**
 * A URI, option or lock name is invalid, or the backend module for a URI is missing from the class
 * path. Thrown at once, before any I/O where possible.
 */
public class LockConfigurationException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and no cause.
     *
     * @param message says which URI, option or name is wrong and how to fix it
     */
    public LockConfigurationException(String message) {
        super(message);
    }

    /**
     * An exception with a message and the failure that led to it.
     *
     * @param message says which URI, option or name is wrong and how to fix it
     * @param cause the underlying failure (a driver's or client library's exception), or {@code
     *     null}
     */
    public LockConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
