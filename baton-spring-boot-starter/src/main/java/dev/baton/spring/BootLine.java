package dev.baton.spring;

import dev.baton.LockConfigurationException;

/**
 * The Spring Boot line this starter (baton-spring-boot-starter) is built for, Spring Boot 4, checked when its
 * auto-configuration starts: on the other line it would start without its health indicator and with
 * classes compiled against another Boot, so it fails at once naming the starter to use instead.
 */
final class BootLine {
    /** Spring Boot's major version this starter is built for. */
    static final int MAJOR = 4;

    /** This starter's artifact. */
    static final String ARTIFACT = "dev.baton:baton-spring-boot-starter";

    /** The starter for the other line, Spring Boot 3.5. */
    static final String OTHER_ARTIFACT = "dev.baton:baton-spring-boot3-starter";

    private BootLine() {}

    /**
     * Fails unless {@code bootVersion} is on this starter's line; a version that cannot be read (a
     * repackaged Boot without its manifest) is let through.
     *
     * @param bootVersion Spring Boot's version at run time, or {@code null}
     * @throws LockConfigurationException naming the starter for that version
     */
    static void require(String bootVersion) {
        if (bootVersion == null || bootVersion.isBlank()) {
            return;
        }
        int dot = bootVersion.indexOf('.');
        String major = dot < 0 ? bootVersion : bootVersion.substring(0, dot);
        if (!major.equals(String.valueOf(MAJOR))) {
            throw new WrongBootLineException("Baton: " + ARTIFACT + " is built for Spring Boot " + MAJOR
                    + ", but this application runs Spring Boot " + bootVersion + "; depend on "
                    + (major.equals("3") || major.equals("4") ? OTHER_ARTIFACT : "the Baton starter for that line")
                    + " (same version) instead of " + ARTIFACT);
        }
    }
}
