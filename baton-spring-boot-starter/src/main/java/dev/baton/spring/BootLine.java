package dev.baton.spring;

/**
 * The Spring Boot line this starter (baton-spring-boot-starter) is built for, Spring Boot 4, checked when its
 * auto-configuration starts ({@link WrongBootLineException#require}).
 */
final class BootLine {
    /** Spring Boot's major version this starter is built for. */
    static final int MAJOR = 4;

    /** This starter's artifact. */
    static final String ARTIFACT = "dev.baton:baton-spring-boot-starter";

    /** The starter for the other line, Spring Boot 3.5. */
    static final String OTHER_ARTIFACT = "dev.baton:baton-spring-boot3-starter";

    private BootLine() {}
}
