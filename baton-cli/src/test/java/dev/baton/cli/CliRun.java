package dev.baton.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** One in-process run of the {@code baton} command, with what it printed. */
record CliRun(int exitCode, String out, String err) {
    static CliRun of(String... args) {
        CommandLine commandLine = BatonCommand.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exit = commandLine.execute(args);
        return new CliRun(exit, out.toString(), err.toString());
    }
}
