package dev.baton.spring;

import dev.baton.LockConfigurationException;

/** A Baton starter on a Spring Boot line it was not built for; the message names the starter to use. */
final class WrongBootLineException extends LockConfigurationException {
    private static final long serialVersionUID = 1L;

    WrongBootLineException(String message) {
        super(message);
    }
}
