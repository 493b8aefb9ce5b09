package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.LockConfigurationException;
import dev.baton.LockException;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockInfo;
import dev.baton.spi.LockMode;
import dev.baton.spi.LockNames;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Shows, for each name, whether the lock is held, by whom, in which mode, with which token, until when. */
@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description = "Show whether each named lock is held, by which owner, in which mode, with which fencing"
                + " token and until when, as far as the backend can tell.")
final class StatusCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--uri", required = true, description = "Backend URI")
    String uri;

    @Parameters(arity = "1..*", paramLabel = "NAME", description = "Lock names")
    List<String> names;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        LockBackend backend;
        try {
            backend = Baton.backend(uri, LockOptions.defaults());
        } catch (LockConfigurationException e) {
            err.println("baton status: " + e.getMessage());
            return ExitCodes.USAGE;
        } catch (LockUnavailableException e) {
            err.println("baton status: " + e.getMessage());
            return ExitCodes.UNAVAILABLE;
        }
        try (backend) {
            for (String name : names) {
                LockNames.validate(name, backend.name());
            }
            for (String name : names) {
                Optional<LockInfo> info = backend.inspect(name);
                out.println(info.map(StatusCommand::describe).orElse(name + ": free"));
            }
            return 0;
        } catch (LockConfigurationException e) {
            err.println("baton status: " + e.getMessage());
            return ExitCodes.USAGE;
        } catch (LockException e) {
            err.println("baton status: " + e.getMessage());
            return ExitCodes.UNAVAILABLE;
        }
    }

    static String describe(LockInfo info) {
        return info.name() + ": held (" + (info.mode() == LockMode.EXCLUSIVE ? "exclusive" : "shared") + ") by "
                + String.join(", ", info.owners()) + ", fencing token " + info.fencingToken() + ", until "
                + info.expiresAt();
    }
}
