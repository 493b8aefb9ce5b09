package dev.baton.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The {@code baton} command. */
@Command(
        name = "baton",
        mixinStandardHelpOptions = true,
        version = "baton 0.1.0-SNAPSHOT",
        description =
                "Distributed locks from the command line: run a command under a lock, list who holds"
                        + " which lock, break a stuck one, benchmark backends side by side, and check their safety under injected faults.",
        subcommands = {
            ExecCommand.class,
            StatusCommand.class,
            LocksCommand.class,
            ReleaseCommand.class,
            BenchCommand.class,
            CheckCommand.class,
            CommandLine.HelpCommand.class
        },
        footer = {
            "",
            "%nExamples:",
            "  baton exec --uri jdbc:postgresql://db/app?user=u&password=p --name nightly-report -- ./report.sh",
            "  baton status --uri redis://127.0.0.1:6379 nightly-report",
            "  baton locks --uri zookeeper://127.0.0.1:2181 --prefix billing/",
            "  baton release --force --uri redis://127.0.0.1:6379 nightly-report",
            "  baton bench --backends h2,postgres --duration 5s",
            "  baton check --backends redis,zookeeper --faults pause,restart --duration 60s --seed 7"
        })
public final class BatonCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--verbose",
            scope = CommandLine.ScopeType.INHERIT,
            description = "Show every warning, Baton's and the client libraries', with its stack trace (default: one"
                    + " line per failure)")
    boolean verbose;

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(commandLine().execute(args));
    }

    /** The configured command line; tests execute it in-process. */
    static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new BatonCommand());
        for (CommandLine command : allCommands(commandLine)) {
            command.getCommandSpec().exitCodeOnInvalidInput(ExitCodes.USAGE);
            command.getCommandSpec().exitCodeOnExecutionException(ExitCodes.SOFTWARE);
        }
        commandLine.getSubcommands().get("exec").getCommandSpec().usageMessage().footer(ExitCodes.help());
        commandLine.setExecutionStrategy(parseResult -> {
            // Here rather than in main: tests run the command in-process and capture its error writer.
            CliLogging.configure(verbose(parseResult), commandLine.getErr());
            return new CommandLine.RunLast().execute(parseResult);
        });
        return commandLine;
    }

    /** Whether --verbose was given, before or after the subcommand's name. */
    private static boolean verbose(CommandLine.ParseResult parseResult) {
        for (CommandLine.ParseResult level = parseResult; level != null; level = level.subcommand()) {
            if (level.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }

    private static java.util.List<CommandLine> allCommands(CommandLine root) {
        java.util.List<CommandLine> all = new java.util.ArrayList<>(java.util.List.of(root));
        for (CommandLine sub : root.getSubcommands().values()) {
            all.addAll(allCommands(sub));
        }
        return all;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
