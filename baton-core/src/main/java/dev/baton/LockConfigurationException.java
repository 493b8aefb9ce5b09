package dev.baton;

/**
 * A URI, option or lock name is invalid, or the backend module for a URI is missing from the class
 * path. Thrown at once, before any I/O where possible.
 */
public class LockConfigurationException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockConfigurationException(String message) {
        super(message);
    }

    public LockConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
