package dev.baton.cli;

import dev.baton.LockInfo;
import dev.baton.spi.LockNames;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
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
        description = "Show whether each named lock is held, and if so the fields `baton locks` shows: kind,"
                + " holders (description, owner id), fencing token, expiry and waiters, as far as the backend"
                + " can tell.")
final class StatusCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--uri", required = true, description = "Backend URI")
    String uri;

    @Option(names = "--json", description = "One JSON object for scripts instead of the table")
    boolean json;

    @Parameters(arity = "1..*", paramLabel = "NAME", description = "Lock names")
    List<String> names;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        return AdminRun.run("status", uri, spec.commandLine().getErr(), admin -> {
            for (String name : names) {
                LockNames.validate(name, admin.backendName());
            }
            List<LockInfo> held = new ArrayList<>();
            List<String> free = new ArrayList<>();
            for (String name : names) {
                Optional<LockInfo> info = admin.status(name);
                info.ifPresentOrElse(held::add, () -> free.add(name));
            }
            if (json) {
                out.println(LockTable.json(admin.backendName(), null, held));
                return 0;
            }
            if (!held.isEmpty()) {
                LockTable.print(held, Instant.now(), out);
            }
            for (String name : free) {
                out.println(name + ": free");
            }
            return 0;
        });
    }
}
