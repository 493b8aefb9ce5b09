package dev.baton.cli;

import dev.baton.Holder;
import dev.baton.LockInfo;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Breaks a lock held by someone else: an operator's tool for a stuck holder. */
@Command(
        name = "release",
        mixinStandardHelpOptions = true,
        description = "Break a lock held by another process (a stuck or vanished holder whose lease still"
                + " runs). Needs --force. The next holder's fencing token is higher than the broken holder's;"
                + " the broken holder learns it at its next renewal at the latest, so until then it may still"
                + " believe it holds the lock: fence your writes with the token. Every holder of NAME is"
                + " broken (lock, read/write lock, semaphore permits), or only --owner's grant.")
final class ReleaseCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--uri", required = true, description = "Backend URI")
    String uri;

    @Option(names = "--force", description = "Confirm that the lock is to be broken")
    boolean force;

    @Option(names = "--owner", description = "Break only this holder's grant (an owner id from `baton locks`)")
    String owner;

    @Parameters(arity = "1", paramLabel = "NAME", description = "The lock or semaphore name")
    String name;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!force) {
            err.println("baton release: refusing to break '" + name + "' without --force: it frees a lock that"
                    + " another process holds, which learns it only at its next renewal. Check the holder with"
                    + " `baton locks --uri URI --prefix " + name + "`, then run again with --force");
            return ExitCodes.USAGE;
        }
        return AdminRun.run("release", uri, err, admin -> {
            List<LockInfo> broken = owner == null ? admin.forceRelease(name) : admin.forceRelease(name, owner);
            if (broken.isEmpty()) {
                out.println("nothing broken: '" + name + "'" + (owner == null ? "" : " of owner " + owner)
                        + " was not held on " + admin.backendName());
                return 0;
            }
            for (LockInfo info : broken) {
                for (Holder holder : info.holders()) {
                    out.println("broke the " + LockTable.kind(info) + " '" + name + "' held by "
                            + (holder.description().isEmpty() ? "an undescribed holder" : holder.description())
                            + " (owner " + holder.ownerId() + ", fencing token " + holder.fencingToken() + ")");
                }
            }
            long highest =
                    broken.stream().mapToLong(LockInfo::fencingToken).max().orElseThrow();
            out.println("the next holder's fencing token will be above " + highest
                    + "; the broken holders learn it at their next renewal at the latest");
            return 0;
        });
    }
}
