package dev.baton.spring;

import dev.baton.LockConfigurationException;

/** A Baton starter on a Spring Boot line it was not built for; the message names the starter to use. */
final class WrongBootLineException extends LockConfigurationException {
    private static final long serialVersionUID = 1L;

    WrongBootLineException(String message) {
        super(message);
    }

    /**
     * Fails unless {@code bootVersion} is on this starter's line ({@link BootLine}): on the other line
     * the starter would start without its health indicator and with classes compiled against another
     * Boot. A version that cannot be read (a repackaged Boot without its manifest) is let through.
     *
     * @param bootVersion Spring Boot's version at run time, or {@code null}
     * @throws WrongBootLineException naming the starter for that version
     */
    static void require(String bootVersion) {
        if (bootVersion == null || bootVersion.isBlank()) {
            return;
        }
        int dot = bootVersion.indexOf('.');
        String major = dot < 0 ? bootVersion : bootVersion.substring(0, dot);
        if (!major.equals(String.valueOf(BootLine.MAJOR))) {
            throw new WrongBootLineException("Baton: " + BootLine.ARTIFACT + " is built for Spring Boot "
                    + BootLine.MAJOR + ", but this application runs Spring Boot " + bootVersion + "; depend on "
                    + (major.equals("3") || major.equals("4")
                            ? BootLine.OTHER_ARTIFACT
                            : "the Baton starter for that line")
                    + " (same version) instead of " + BootLine.ARTIFACT);
        }
    }
}
