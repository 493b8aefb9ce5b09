package dev.baton.cli;

import dev.baton.LockInfo;
import dev.baton.LockKind;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Lists every held lock, read/write lock and semaphore of a backend, with holders and waiters. */
@Command(
        name = "locks",
        mixinStandardHelpOptions = true,
        description = "List every held lock, read/write lock and semaphore (permits in use of N), with each"
                + " holder's description (client name, host, pid, thread), owner id, fencing token and expiry,"
                + " and the number of waiters where the backend can tell (? where it cannot).")
final class LocksCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--uri", required = true, description = "Backend URI")
    String uri;

    @Option(names = "--prefix", defaultValue = "", description = "Only names that start with this")
    String prefix;

    @Option(names = "--json", description = "One JSON object for scripts instead of the table")
    boolean json;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        return AdminRun.run("locks", uri, spec.commandLine().getErr(), admin -> {
            List<LockInfo> locks = admin.locks(prefix);
            if (json) {
                out.println(LockTable.json(admin.backendName(), admin.listingMethod(), locks));
                return 0;
            }
            String where = (prefix.isEmpty() ? "" : " under '" + prefix + "'") + " on " + admin.backendName();
            if (locks.isEmpty()) {
                out.println("nothing held" + where);
            } else {
                LockTable.print(locks, Instant.now(), out);
                long semaphores = locks.stream()
                        .filter(info -> info.kind() == LockKind.PERMIT)
                        .count();
                out.println();
                out.println(count(locks.size() - semaphores, "lock") + " and " + count(semaphores, "semaphore")
                        + " held" + where);
            }
            if (!admin.listingMethod().isEmpty()) {
                out.println("(" + admin.backendName() + " " + admin.listingMethod() + ")");
            }
            return 0;
        });
    }

    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
