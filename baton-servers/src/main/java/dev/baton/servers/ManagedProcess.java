package dev.baton.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one server process that a launcher of this package starts: spawning it with its output
 * appended to a log file, waiting until it is ready, pausing, killing, restarting and stopping it, and
 * cleaning up once. Every launcher (Redis, PostgreSQL, MariaDB, etcd, Azurite) keeps one per process
 * and decides only the command line and what "ready" means.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li>From {@link Builder#build()} until {@link #close()}, a JVM shutdown hook covers the process:
 *       if {@code close()} is never called, the hook stops it (with {@link Builder#jvmExitStop}) and
 *       deletes the paths given to {@link Builder#deleteOnClose}. {@code close()} removes the hook.
 *   <li>{@link #close()} and the hook run their clean-up exactly once between them; later calls do
 *       nothing. A closed process cannot be started again.
 *   <li>Stopping sends SIGCONT first (a process a fault test paused would not act on the signal),
 *       then the stop signal (SIGTERM unless configured otherwise), waits the grace period, then sends
 *       SIGKILL to the process and every process below it and waits again, at most 5 s. Every wait
 *       is bounded; nothing here waits forever on a process.
 *   <li>{@link #start} returns {@code true} only once the readiness probe said yes while the process
 *       was alive, within the ready timeout.
 *   <li>State changes (start, kill, stop, restart, close, signals) are serialised by one lock;
 *       {@link #pid()} and {@link #isRunning()} never block.
 * </ul>
 *
 * <p>Failure behaviour: {@link #start} returns {@code false} if the process exited while starting and
 * its log (from where this run began) contains one of the {@link Builder#portTakenWhen} phrases: the
 * caller may try another port. It throws {@link IllegalStateException} with the tail of the log when
 * the process exited for another reason, or was not ready in time (then it is killed first), or the
 * thread was interrupted (interrupt status kept). {@link #kill()} throws if a process survives SIGKILL
 * for 10 s. {@link #close()} and the hook never throw: what they cannot do is logged.
 */
final class ManagedProcess implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ManagedProcess.class);
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);
    private static final Duration FORCED_WAIT = Duration.ofSeconds(5);

    /** Says whether a started process serves; an exception counts as "not yet" and is kept as a cause. */
    @FunctionalInterface
    interface Probe {
        boolean ready() throws Exception;
    }

    private final String name;
    private final Path logFile;
    private final Path directory;
    private final Consumer<Map<String, String>> environment;
    private final List<String> portTaken;
    private final UnaryOperator<String> exitHint;
    private final Duration readyTimeout;
    private final String stopSignal;
    private final Duration stopGrace;
    private final String jvmExitSignal;
    private final Duration jvmExitGrace;
    private final List<Path> deleteOnClose;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;
    private volatile Process process;
    private volatile List<String> command;
    private volatile Probe probe;
    private volatile long logStart;

    private ManagedProcess(Builder b) {
        this.name = b.name;
        this.logFile = b.logFile;
        this.directory = b.directory;
        this.environment = b.environment;
        this.portTaken = List.copyOf(b.portTaken);
        this.exitHint = b.exitHint;
        this.readyTimeout = b.readyTimeout;
        this.stopSignal = b.stopSignal;
        this.stopGrace = b.stopGrace;
        this.jvmExitSignal = b.jvmExitSignal;
        this.jvmExitGrace = b.jvmExitGrace;
        this.deleteOnClose = List.copyOf(b.deleteOnClose);
        this.shutdownHook = new Thread(this::closeOnJvmExit, "baton-stop-" + name.replace(' ', '-'));
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** {@return a builder for a process called {@code name} in messages, e.g. {@code Redis}} */
    static Builder builder(String name, Path logFile) {
        return new Builder(name, logFile);
    }

    /**
     * Spawns {@code command} and waits until {@code ready} says yes; see the class description.
     *
     * @return {@code true} once ready, {@code false} if it exited because its port was taken
     * @throws IllegalStateException if it exited for another reason, was not ready in time, was
     *     interrupted, could not be run, or this was closed
     */
    boolean start(List<String> command, Probe ready) {
        lock.lock();
        try {
            spawn(command, ready);
            return awaitReady(List.of(this), readyTimeout);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Spawns {@code command} without waiting; {@link #awaitReady} waits for it (for a group of
     * processes that become ready only together, such as an etcd cluster).
     */
    void spawn(List<String> command, Probe ready) {
        lock.lock();
        try {
            if (closed.get()) {
                throw new IllegalStateException(name + " was closed; it cannot be started again");
            }
            if (isRunning()) {
                throw new IllegalStateException(name + " (pid " + pid() + ") is running already");
            }
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
            if (directory != null) {
                builder.directory(directory.toFile());
            }
            environment.accept(builder.environment());
            this.command = List.copyOf(command);
            this.probe = ready;
            this.logStart = Files.exists(logFile) ? Files.size(logFile) : 0;
            this.process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("could not run " + name + " (" + command.get(0) + "): " + e, e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until every process of {@code group} is ready (each spawned by {@link #spawn}).
     *
     * @return {@code true} when all are ready, {@code false} when one exited because its port was
     *     taken (the others are left running: the caller closes them)
     * @throws IllegalStateException as {@link #start} does; then every process of the group is killed
     */
    static boolean awaitReady(List<ManagedProcess> group, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = 5;
        List<Exception> last = new ArrayList<>(Collections.nCopies(group.size(), null));
        try {
            while (true) {
                boolean all = true;
                for (int i = 0; i < group.size(); i++) {
                    ManagedProcess member = group.get(i);
                    Process current = member.process;
                    if (!current.isAlive()) {
                        String tail = member.logTail();
                        if (member.portTaken.stream().anyMatch(tail::contains)) {
                            return false;
                        }
                        throw new IllegalStateException(member.name + " exited with code " + current.exitValue()
                                + " while starting" + tail + member.exitHint.apply(tail));
                    }
                    all &= member.probe(current, i, last);
                }
                if (all) {
                    return true;
                }
                if (System.nanoTime() - deadline > 0) {
                    StringBuilder tails = new StringBuilder();
                    group.forEach(member -> tails.append(member.logTail()));
                    throw new IllegalStateException(
                            names(group) + " not ready within " + timeout.toSeconds() + " s" + tails,
                            last.stream().filter(e -> e != null).findFirst().orElse(null));
                }
                Thread.sleep(pause);
                pause = Math.min(100, pause * 2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            group.forEach(ManagedProcess::killQuietly);
            throw new IllegalStateException("interrupted while starting " + names(group), e);
        } catch (RuntimeException e) {
            group.forEach(ManagedProcess::killQuietly);
            throw e;
        }
    }

    private boolean probe(Process current, int index, List<Exception> last) {
        try {
            // ready only if it is still ours: a probe may reach whatever took the port after we exited
            return probe.ready() && current.isAlive();
        } catch (Exception e) {
            last.set(index, e);
            return false;
        }
    }

    private static String names(List<ManagedProcess> group) {
        return group.size() == 1
                ? group.get(0).name + " was"
                : group.stream().map(m -> m.name).toList() + " were";
    }

    /**
     * Stops the process (gracefully if {@code graceful}, else with SIGKILL) and starts the same command
     * again, trying again while its port is still taken, for up to {@code portWait}.
     *
     * @throws IllegalStateException if this was closed, or it is not ready again in time (with the
     *     tail of the log); the process is then not running, and {@link #close()} still cleans up
     */
    void restart(boolean graceful, Duration portWait) {
        lock.lock();
        try {
            if (closed.get() || command == null) {
                throw new IllegalStateException(
                        name + " was " + (closed.get() ? "closed" : "never started") + "; it cannot be restarted");
            }
            if (graceful) {
                stop(stopSignal, stopGrace);
            } else {
                kill();
            }
            List<String> again = command;
            Probe ready = probe;
            long deadline = System.nanoTime() + portWait.toNanos();
            while (!start(again, ready)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(
                            name + " could not bind its port again within " + portWait.toSeconds() + " s" + logTail());
                }
                log.debug("the port of {} is still taken; starting it again shortly", name);
                Thread.sleep(100); // backoff before the next attempt, not synchronisation
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting " + name, e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Kills the process and every process below it with SIGKILL (a crash) and returns once they are
     * gone; does nothing if it is not running. Nothing is deleted.
     *
     * @throws IllegalStateException if a process is still alive 10 s after SIGKILL
     */
    void kill() {
        lock.lock();
        try {
            Process current = process;
            if (current != null && current.isAlive() && !killTree(current, KILL_WAIT)) {
                throw new IllegalStateException("a process of " + name + " (pid " + current.pid() + ") is still alive "
                        + KILL_WAIT.toSeconds() + " s after SIGKILL");
            }
        } finally {
            lock.unlock();
        }
    }

    /** Stops the process with SIGSTOP, as a long GC pause or a frozen VM does; see {@link #resume()}. */
    void pause() {
        signal("STOP", "pause");
    }

    /** Continues a paused process with SIGCONT; harmless on a running one. */
    void resume() {
        signal("CONT", "resume");
    }

    private void signal(String signal, String what) {
        lock.lock();
        try {
            Process current = process;
            if (current == null || !current.isAlive()) {
                throw new IllegalStateException("cannot " + what + " " + name + ": it is not running");
            }
            if (!Posix.signal(current.pid(), signal)) {
                throw new IllegalStateException(
                        "cannot " + what + " " + name + ": kill -" + signal + " " + current.pid() + " failed");
            }
        } finally {
            lock.unlock();
        }
    }

    /** {@return the pid of the current (or last) process, also after it exited; -1 before the first} */
    long pid() {
        Process current = process;
        return current == null ? -1 : current.pid();
    }

    /** {@return whether the process runs (paused counts as running)} */
    boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    boolean isClosed() {
        return closed.get();
    }

    /** {@return the tail of the log since the current process was spawned, for messages; may be empty} */
    String logTail() {
        return Files.exists(logFile) ? Posix.tail(logFile, logStart) : "";
    }

    /** Stops the process (stop signal, grace, SIGKILL) and deletes what it was given; once. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down; the hook may run as well and then finds this closed
            }
        }
        cleanUp(stopSignal, stopGrace);
        log.info("stopped {} (pid {})", name, pid());
    }

    private void closeOnJvmExit() {
        if (closed.compareAndSet(false, true)) {
            cleanUp(jvmExitSignal, jvmExitGrace);
        }
    }

    private void cleanUp(String signal, Duration grace) {
        lock.lock();
        try {
            stop(signal, grace);
            deleteOnClose.forEach(Posix::deleteRecursively);
        } finally {
            lock.unlock();
        }
    }

    private void stop(String signal, Duration grace) {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        Posix.signal(current.pid(), "CONT"); // in case a fault test left it stopped
        if (signal.equals("TERM")) {
            current.destroy();
        } else {
            Posix.signal(current.pid(), signal);
        }
        if (waitFor(current.toHandle(), grace.toNanos())) {
            return;
        }
        log.warn(
                "{} (pid {}) did not exit within {} s after SIG{}; killing it",
                name,
                current.pid(),
                grace.toSeconds(),
                signal);
        if (!killTree(current, FORCED_WAIT)) {
            log.warn("{} (pid {}) survived SIGKILL for {} s", name, current.pid(), FORCED_WAIT.toSeconds());
        }
    }

    private void killQuietly() {
        Process current = process;
        if (current != null && current.isAlive()) {
            killTree(current, FORCED_WAIT);
        }
    }

    /** SIGKILL to the process and all below it (SIGKILL ends a stopped process too); whether all exited. */
    private static boolean killTree(Process process, Duration wait) {
        List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
        all.add(process.toHandle());
        all.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + wait.toNanos();
        boolean gone = true;
        for (ProcessHandle handle : all) {
            gone &= waitFor(handle, Math.max(0, deadline - System.nanoTime()));
        }
        return gone;
    }

    private static boolean waitFor(ProcessHandle handle, long nanos) {
        try {
            handle.onExit().get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return !handle.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            handle.destroyForcibly();
            return false;
        }
    }

    @Override
    public String toString() {
        return "ManagedProcess[" + name + ", pid " + pid() + (isRunning() ? ", running" : "") + "]";
    }

    /** Settings of a {@link ManagedProcess}; {@link #build()} registers its shutdown hook. */
    static final class Builder {
        private final String name;
        private final Path logFile;
        private Path directory;
        private Consumer<Map<String, String>> environment = env -> {};
        private final List<String> portTaken = new ArrayList<>();
        private UnaryOperator<String> exitHint = tail -> "";
        private Duration readyTimeout = Duration.ofSeconds(30);
        private String stopSignal = "TERM";
        private Duration stopGrace = Duration.ofSeconds(10);
        private String jvmExitSignal = "TERM";
        private Duration jvmExitGrace = Duration.ofSeconds(5);
        private final List<Path> deleteOnClose = new ArrayList<>();

        private Builder(String name, Path logFile) {
            this.name = name;
            this.logFile = logFile;
        }

        /** The working directory (default: this JVM's). */
        Builder directory(Path dir) {
            this.directory = dir;
            return this;
        }

        /** Edits the environment the process inherits from this JVM. */
        Builder environment(Consumer<Map<String, String>> edit) {
            this.environment = edit;
            return this;
        }

        /** Log phrases that mean the process exited because its port was taken. */
        Builder portTakenWhen(String... phrases) {
            portTaken.addAll(List.of(phrases));
            return this;
        }

        /** Text appended to the message when the process exits while starting, given its log tail. */
        Builder exitHint(UnaryOperator<String> hint) {
            this.exitHint = hint;
            return this;
        }

        /** How long {@link ManagedProcess#start} waits for the probe (default 30 s). */
        Builder readyTimeout(Duration timeout) {
            this.readyTimeout = timeout;
            return this;
        }

        /** The signal that asks it to stop, and how long to wait before SIGKILL (default TERM, 10 s). */
        Builder stop(String signal, Duration grace) {
            this.stopSignal = signal;
            this.stopGrace = grace;
            return this;
        }

        /** The same for the JVM shutdown hook (default TERM, 5 s). */
        Builder jvmExitStop(String signal, Duration grace) {
            this.jvmExitSignal = signal;
            this.jvmExitGrace = grace;
            return this;
        }

        /** Files or directories deleted (recursively) once the process is stopped by close or the hook. */
        Builder deleteOnClose(Path... paths) {
            deleteOnClose.addAll(List.of(paths));
            return this;
        }

        ManagedProcess build() {
            return new ManagedProcess(this);
        }
    }
}
