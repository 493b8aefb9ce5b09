package dev.baton.servers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The settings of a {@link ManagedProcess}, from {@link ManagedProcess#builder}; {@link #build()}
 * makes the process (not started yet) and registers its shutdown hook. Not used after {@code build()}.
 */
final class ManagedProcessBuilder {
    final String name;
    final Path logFile;
    Consumer<ProcessBuilder> customize = builder -> {};
    final List<String> portTaken = new ArrayList<>();
    UnaryOperator<String> exitHint = tail -> "";
    Duration readyTimeout = Duration.ofSeconds(30);
    String stopSignal = "TERM";
    Duration stopGrace = Duration.ofSeconds(10);
    String jvmExitSignal = "TERM";
    Duration jvmExitGrace = Duration.ofSeconds(5);
    final List<Path> deleteOnClose = new ArrayList<>();

    ManagedProcessBuilder(String name, Path logFile) {
        this.name = name;
        this.logFile = logFile;
    }

    /** Sets more of the process: its working directory, its environment. */
    ManagedProcessBuilder customize(Consumer<ProcessBuilder> edit) {
        this.customize = edit;
        return this;
    }

    /** Log phrases that mean the process exited because its port was taken. */
    ManagedProcessBuilder portTakenWhen(String... phrases) {
        portTaken.addAll(List.of(phrases));
        return this;
    }

    /** Text appended to the message when the process exits while starting, given its log tail. */
    ManagedProcessBuilder exitHint(UnaryOperator<String> hint) {
        this.exitHint = hint;
        return this;
    }

    /** How long {@link ManagedProcess#start} waits for the probe (default 30 s). */
    ManagedProcessBuilder readyTimeout(Duration timeout) {
        this.readyTimeout = timeout;
        return this;
    }

    /** The signal that asks it to stop, and how long to wait before SIGKILL (default TERM, 10 s). */
    ManagedProcessBuilder stop(String signal, Duration grace) {
        this.stopSignal = signal;
        this.stopGrace = grace;
        return this;
    }

    /** The same for the JVM shutdown hook (default TERM, 5 s). */
    ManagedProcessBuilder jvmExitStop(String signal, Duration grace) {
        this.jvmExitSignal = signal;
        this.jvmExitGrace = grace;
        return this;
    }

    /** Files or directories deleted (recursively) once the process is stopped by close or the hook. */
    ManagedProcessBuilder deleteOnClose(Path... paths) {
        deleteOnClose.addAll(List.of(paths));
        return this;
    }

    ManagedProcess build() {
        return new ManagedProcess(this);
    }
}
