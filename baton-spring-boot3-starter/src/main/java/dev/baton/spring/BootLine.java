package dev.baton.spring;

/**
 * The Spring Boot line this starter (baton-spring-boot3-starter) is built for, Spring Boot 3.5, checked when its
 * auto-configuration starts ({@link WrongBootLineException#require}).
 */
final class BootLine {
    /** Spring Boot's major version this starter is built for. */
    static final int MAJOR = 3;

    /** This starter's artifact. */
    static final String ARTIFACT = "dev.baton:baton-spring-boot3-starter";

    /** The starter for the other line, Spring Boot 4. */
    static final String OTHER_ARTIFACT = "dev.baton:baton-spring-boot-starter";

    private BootLine() {}
}
