package dev.baton.cli;

/**
 * The exit codes of {@code baton}, documented in README and {@code --help}. They follow
 * sysexits.h where one fits, and the shell's conventions for commands that cannot run.
 */
final class ExitCodes {
    /** Bad arguments: unknown option, bad duration, bad URI or lock name. */
    static final int USAGE = 64;
    /** The backend could not be reached or refused the request. */
    static final int UNAVAILABLE = 69;
    /** An internal error. */
    static final int SOFTWARE = 70;
    /** The lock was not acquired within --wait. */
    static final int NOT_ACQUIRED = 75;
    /** The lease was lost while the command ran; the command was terminated. */
    static final int LEASE_LOST = 76;
    /** The command exists but could not be started. */
    static final int CANNOT_EXECUTE = 126;
    /** The command was not found. */
    static final int NOT_FOUND = 127;

    private ExitCodes() {}

    static String help() {
        return String.join(
                "%n",
                "Exit codes:",
                "  exec returns the command's own exit code, or:",
                "  " + USAGE + "  bad arguments (option, duration, URI, lock name)",
                "  " + UNAVAILABLE + "  backend unavailable (unreachable, refused, wrong credentials)",
                "  " + NOT_ACQUIRED + "  lock not acquired within --wait",
                "  " + LEASE_LOST + "  lease lost while the command ran; the command was terminated",
                "  " + CANNOT_EXECUTE + " command could not be started",
                "  " + NOT_FOUND + " command not found");
    }
}
