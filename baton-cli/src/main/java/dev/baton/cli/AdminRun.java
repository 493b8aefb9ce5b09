package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.LockAdmin;
import dev.baton.LockConfigurationException;
import dev.baton.LockException;
import dev.baton.LockOptions;
import java.io.PrintWriter;
import java.util.function.Function;

/**
 * Runs an operator command ({@code locks}, {@code status}, {@code release}) against a {@link
 * LockAdmin}, turning failures into one line on stderr and the documented exit code.
 */
final class AdminRun {
    private AdminRun() {}

    /**
     * Opens the admin of {@code uri}, runs {@code body}, closes the admin.
     *
     * @param command the subcommand's name, for the messages
     * @param uri the backend URI
     * @param err where failures go
     * @param body what the command does; returns its exit code
     * @return the body's exit code, {@link ExitCodes#USAGE} for a bad URI, name or argument, {@link
     *     ExitCodes#UNAVAILABLE} for a backend that cannot be asked or cannot do what was asked
     */
    static int run(String command, String uri, PrintWriter err, Function<LockAdmin, Integer> body) {
        try (LockAdmin admin = Baton.admin(uri, LockOptions.defaults())) {
            return body.apply(admin);
        } catch (LockConfigurationException e) {
            err.println("baton " + command + ": " + e.getMessage());
            return ExitCodes.USAGE;
        } catch (LockException e) {
            err.println("baton " + command + ": " + e.getMessage());
            return ExitCodes.UNAVAILABLE;
        } catch (UnsupportedOperationException e) {
            err.println("baton " + command + ": " + e.getMessage());
            return ExitCodes.UNAVAILABLE;
        }
    }
}
