package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockException;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.LockUnavailableException;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Runs a command while holding a lock, like {@code flock}, {@code etcdctl lock} or {@code consul
 * lock}, across machines and with a fencing token.
 */
@Command(
        name = "exec",
        mixinStandardHelpOptions = true,
        description = {
            "Acquire a lock, run COMMAND with BATON_LOCK_NAME and BATON_FENCING_TOKEN in its environment, renew"
                    + " the lease while it runs, release it when the command exits, and exit with the command's"
                    + " exit code.",
            "If the lease is lost, the command gets SIGTERM, then SIGKILL after --grace, and baton exits with 76."
        })
final class ExecCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--uri",
            required = true,
            description = "Backend URI, e.g. jdbc:postgresql://host/db?user=u&password=p")
    String uri;

    @Option(names = "--name", required = true, description = "Lock name (1 to 512 UTF-8 bytes, no control characters)")
    String name;

    @Option(
            names = "--wait",
            defaultValue = "30s",
            converter = DurationConverter.class,
            description = "How long to wait for the lock (default ${DEFAULT-VALUE}); 0 tries once")
    Duration wait;

    @Option(
            names = "--lease",
            defaultValue = "30s",
            converter = DurationConverter.class,
            description = "Lease time, renewed at a third of it while the command runs (default ${DEFAULT-VALUE})")
    Duration lease;

    @Option(
            names = "--grace",
            defaultValue = "10s",
            converter = DurationConverter.class,
            description = "After a lost lease, time between SIGTERM and SIGKILL (default ${DEFAULT-VALUE})")
    Duration grace;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "The command and its arguments (after --)")
    List<String> command;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        LockOptions options;
        try {
            options = LockOptions.builder().leaseTime(lease).build();
        } catch (LockConfigurationException e) {
            err.println("baton exec: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        LockClient client;
        try {
            client = Baton.connect(uri, options);
        } catch (LockConfigurationException e) {
            err.println("baton exec: " + e.getMessage());
            return ExitCodes.USAGE;
        } catch (LockUnavailableException e) {
            err.println("baton exec: " + e.getMessage());
            return ExitCodes.UNAVAILABLE;
        }
        try (client) {
            Lease held;
            try {
                held = client.lock(name).acquire(wait);
            } catch (LockTimeoutException e) {
                err.println("baton exec: " + e.getMessage());
                return ExitCodes.NOT_ACQUIRED;
            } catch (LockConfigurationException e) {
                err.println("baton exec: " + e.getMessage());
                return ExitCodes.USAGE;
            } catch (LockUnavailableException e) {
                err.println("baton exec: " + e.getMessage());
                return ExitCodes.UNAVAILABLE;
            }
            try (held) {
                return runUnder(held, err);
            }
        } catch (LockException e) {
            err.println("baton exec: " + e.getMessage());
            return ExitCodes.UNAVAILABLE;
        }
    }

    private int runUnder(Lease held, PrintWriter err) {
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().put("BATON_LOCK_NAME", name);
        builder.environment().put("BATON_FENCING_TOKEN", Long.toString(held.fencingToken()));
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            String message = String.valueOf(e.getMessage());
            boolean missing = message.contains("error=2,") || message.contains("No such file");
            err.println("baton exec: cannot run '" + command.get(0) + "': " + message
                    + (missing ? "; check the command name and PATH" : "; check its permissions"));
            return missing ? ExitCodes.NOT_FOUND : ExitCodes.CANNOT_EXECUTE;
        }
        AtomicBoolean lost = new AtomicBoolean();
        held.onLost(loss -> {
            lost.set(true);
            err.println("baton exec: " + loss.getMessage() + "; terminating the command (SIGTERM, SIGKILL after "
                    + grace + ")");
            err.flush();
            Thread terminator = new Thread(() -> terminate(process), "baton-exec-terminator");
            terminator.setDaemon(true);
            terminator.start();
        });
        Thread onExit = new Thread(() -> {
            if (process.isAlive()) {
                terminate(process);
            }
        });
        Runtime.getRuntime().addShutdownHook(onExit);
        try {
            int exit = process.waitFor();
            return lost.get() ? ExitCodes.LEASE_LOST : exit;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            terminate(process);
            return ExitCodes.SOFTWARE;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(onExit);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down
            }
        }
    }

    private void terminate(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
