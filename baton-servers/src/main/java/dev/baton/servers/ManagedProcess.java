package dev.baton.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one server process that a launcher of this package starts: spawning it with its output
 * appended to a log file, waiting until it is ready, signalling, killing, restarting and stopping it,
 * and cleaning up once. Each launcher (Redis, PostgreSQL, MariaDB, etcd, Azurite) keeps one per
 * process and decides only the command line and what "ready" means; a server that an environment
 * variable names elsewhere gets an {@link #external} one, which starts nothing and refuses faults.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li>From {@link ManagedProcessBuilder#build()} until {@link #close()}, a JVM shutdown hook covers
 *       the process: if {@code close()} is never called, the hook stops it (see {@link
 *       ManagedProcessBuilder#jvmExitStop}) and deletes the paths given to {@link
 *       ManagedProcessBuilder#deleteOnClose}. {@code close()} removes the hook. Between them, the
 *       clean-up runs exactly once; a closed process cannot be started again.
 *   <li>Stopping sends SIGCONT first (a paused process would not act on the signal), then the stop
 *       signal (SIGTERM unless set otherwise), waits the grace period, then sends SIGKILL to the
 *       process and every process below it and waits at most 5 s more. No wait here is unbounded.
 *   <li>{@link #start} returns {@code true} only once the probe said yes while the process was alive.
 *   <li>Start, kill, restart, signals and close are serialised by one lock; {@link #pid()} and
 *       {@link #isRunning()} never block.
 * </ul>
 *
 * <p>Failure behaviour: {@link #start} returns {@code false} if the process exited while starting and
 * its log (from where this run began) contains one of the {@link ManagedProcessBuilder#portTakenWhen}
 * phrases, so that the caller may try another port. It throws {@link IllegalStateException} with the
 * tail of the log when the process exited for another reason or was not ready in time (then it is
 * killed), or when interrupted (the interrupt status is kept). {@link #kill()} throws if a process
 * survives SIGKILL for 10 s. {@link #close()} and the hook never throw: what they cannot do is logged.
 */
final class ManagedProcess implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ManagedProcess.class);
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);
    private static final Duration FORCED_WAIT = Duration.ofSeconds(5);

    /** Whether the process listening on {@code port} serves; an exception means "not yet". */
    @FunctionalInterface
    interface Probe {
        boolean ready(int port) throws Exception;
    }

    private final ManagedProcessBuilder settings; // null for an external server
    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;
    private volatile Process process;
    private volatile List<String> command;
    private volatile int port = -1;
    private volatile Probe probe;
    private volatile long logStart;

    ManagedProcess(ManagedProcessBuilder settings) {
        this.settings = settings;
        this.name = settings.name;
        this.shutdownHook = new Thread(this::closeOnJvmExit, "baton-stop-" + name.replace(' ', '-'));
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    private ManagedProcess(String description) {
        this.settings = null;
        this.name = description;
        this.shutdownHook = null;
    }

    /** {@return a builder for a process called {@code name} in messages, e.g. {@code Redis}} */
    static ManagedProcessBuilder builder(String name, Path logFile) {
        return new ManagedProcessBuilder(name, logFile);
    }

    /**
     * {@return a stand-in for a server started elsewhere} Its pid is -1, it never runs, {@link
     * #close()} does nothing, and starting, killing, restarting and signals throw {@link
     * IllegalStateException} ("cannot kill " + {@code description}).
     */
    static ManagedProcess external(String description) {
        return new ManagedProcess(description);
    }

    /**
     * Spawns {@code command}, which is to listen on {@code port}, and waits until {@code ready} says yes.
     *
     * @return {@code true} once ready, {@code false} if it exited because its port was taken
     * @throws IllegalStateException if it exited for another reason, was not ready in time, was
     *     interrupted, could not be run, or this was closed
     */
    boolean start(List<String> command, int port, Probe ready) {
        lock.lock();
        try {
            spawn(command, port, ready);
            return awaitReady(List.of(this), settings.readyTimeout);
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@link #start}s the command for a port from {@code ports}, and again with the next port while
     * the port was taken, at most {@code attempts} times.
     *
     * @return the port the process serves on
     * @throws IllegalStateException as {@link #start} does, or when every attempt found its port taken
     */
    int startOnFreePort(IntSupplier ports, int attempts, IntFunction<List<String>> command, Probe ready) {
        for (int attempt = 1; ; attempt++) {
            int next = ports.getAsInt();
            if (start(command.apply(next), next, ready)) {
                return next;
            }
            if (attempt == attempts) {
                throw new IllegalStateException(
                        name + " could not bind a free port in " + attempts + " attempts" + logTail());
            }
            log.debug("port {} was taken before {} could bind it; trying another", next, name);
        }
    }

    /**
     * Runs a launcher's start-up (preparing files, {@link #startOnFreePort}, first requests); if it
     * fails, {@link #close()}s this, so that nothing runs and the paths are deleted, and throws what
     * it threw, a checked exception wrapped in an {@link IllegalStateException}.
     */
    <T> T closeOnFailure(Callable<T> startup) {
        try {
            return startup.call();
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            close();
            throw new IllegalStateException("could not start " + name + ": " + e, e);
        }
    }

    /**
     * Spawns {@code command} without waiting; {@link #awaitReady} waits for it (for a group of
     * processes that become ready only together, such as an etcd cluster).
     */
    void spawn(List<String> command, int port, Probe ready) {
        lock.lock();
        try {
            requireOwn("start");
            if (closed.get() || isRunning()) {
                throw new IllegalStateException(
                        this + (closed.get() ? " was closed" : " runs") + "; it cannot be started");
            }
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(settings.logFile.toFile()));
            settings.customize.accept(builder);
            this.command = List.copyOf(command);
            this.port = port;
            this.probe = ready;
            this.logStart = Files.exists(settings.logFile) ? Files.size(settings.logFile) : 0;
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
        Exception last = null; // why the probe said no, for the timeout's message
        String who = group.size() == 1 ? group.get(0) + " was" : group + " were";
        try {
            while (true) {
                boolean all = true;
                for (ManagedProcess member : group) {
                    Process current = member.process;
                    if (!current.isAlive()) {
                        String tail = member.logTail();
                        if (member.settings.portTaken.stream().anyMatch(tail::contains)) {
                            return false;
                        }
                        throw new IllegalStateException(member + " exited with code " + current.exitValue()
                                + " while starting" + tail + member.settings.exitHint.apply(tail));
                    }
                    try {
                        // ready only if still ours: the probe may reach whatever took the port after we exited
                        all &= member.probe.ready(member.port) && current.isAlive();
                    } catch (Exception e) {
                        last = e;
                        all = false;
                    }
                }
                if (all) {
                    return true;
                }
                if (System.nanoTime() - deadline > 0) {
                    String tails = group.stream().map(ManagedProcess::logTail).collect(Collectors.joining());
                    throw new IllegalStateException(
                            who + " not ready within " + timeout.toSeconds() + " s" + tails, last);
                }
                Thread.sleep(pause);
                pause = Math.min(100, pause * 2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            group.forEach(member -> Posix.killTree(member.process.toHandle(), FORCED_WAIT));
            throw new IllegalStateException("interrupted while starting " + group, e);
        } catch (RuntimeException e) {
            group.forEach(member -> Posix.killTree(member.process.toHandle(), FORCED_WAIT));
            throw e;
        }
    }

    /**
     * Stops the process (gracefully if {@code graceful}, else with SIGKILL) and starts the same command
     * again on the same port, trying again while the port is still taken, for up to {@code portWait}.
     *
     * @throws IllegalStateException if this is external, was closed or never started, or it is not
     *     ready again in time (with the tail of the log); it is then not running, and {@link #close()}
     *     still cleans up
     */
    void restart(boolean graceful, Duration portWait) {
        lock.lock();
        try {
            requireOwn("restart");
            if (closed.get() || command == null) {
                throw new IllegalStateException(
                        this + " was " + (closed.get() ? "closed" : "never started") + "; it cannot be restarted");
            }
            if (graceful) {
                stop(settings.stopSignal, settings.stopGrace);
            } else {
                kill();
            }
            long deadline = System.nanoTime() + portWait.toNanos();
            while (!start(command, port, probe)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(
                            this + " could not bind its port again within " + portWait.toSeconds() + " s" + logTail());
                }
                log.debug("the port of {} is still taken; starting it again shortly", this);
                Thread.sleep(100); // backoff before the next attempt, not synchronisation
            }
            log.info("restarted {} (pid {})", this, pid());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting " + this, e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Kills the process and every process below it with SIGKILL (a crash) and returns once they are
     * gone; does nothing if it is not running. Nothing is deleted.
     *
     * @throws IllegalStateException if this is external, or a process is still alive 10 s after SIGKILL
     */
    void kill() {
        lock.lock();
        try {
            requireOwn("kill");
            Process current = process;
            if (current != null && current.isAlive()) {
                if (!Posix.killTree(current.toHandle(), KILL_WAIT)) {
                    throw new IllegalStateException("a process of " + this + " (pid " + current.pid()
                            + ") is still alive " + KILL_WAIT.toSeconds() + " s after SIGKILL");
                }
                log.info("killed {} (pid {})", this, current.pid());
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends {@code signal} to the process: STOP pauses it (as a long GC pause or a frozen VM does),
     * CONT continues it. {@code what} names the act in the message if it is not running or kill fails.
     */
    void signal(String signal, String what) {
        lock.lock();
        try {
            requireOwn(what);
            if (!isRunning() || !Posix.signal(pid(), signal)) {
                throw new IllegalStateException("cannot " + what + " " + this
                        + (isRunning() ? ": kill -" + signal + " " + pid() + " failed" : ": it is not running"));
            }
        } finally {
            lock.unlock();
        }
    }

    private void requireOwn(String what) {
        if (external()) {
            throw new IllegalStateException("cannot " + what + " " + name);
        }
    }

    /** {@return whether this stands for a server started elsewhere} */
    boolean external() {
        return settings == null;
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

    /** {@return the tail of the log since the current process was spawned, for messages; may be empty} */
    String logTail() {
        return external() || !Files.exists(settings.logFile) ? "" : Posix.tail(settings.logFile, logStart);
    }

    /** Stops the process (stop signal, grace, SIGKILL) and deletes what it was given; once. */
    @Override
    public void close() {
        if (external() || !closed.compareAndSet(false, true)) {
            return;
        }
        if (Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down; the hook may run as well and then finds this closed
            }
        }
        cleanUp(settings.stopSignal, settings.stopGrace);
        log.info("stopped {} (pid {})", this, pid());
    }

    private void closeOnJvmExit() {
        if (closed.compareAndSet(false, true)) {
            cleanUp(settings.jvmExitSignal, settings.jvmExitGrace);
        }
    }

    private void cleanUp(String signal, Duration grace) {
        lock.lock();
        try {
            stop(signal, grace);
            settings.deleteOnClose.forEach(Posix::deleteRecursively);
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
        Posix.signal(current.pid(), signal);
        if (Posix.awaitExit(current.toHandle(), grace)) {
            return;
        }
        log.warn("{} (pid {}) still ran {} s after SIG{}; killing it", this, current.pid(), grace.toSeconds(), signal);
        if (!Posix.killTree(current.toHandle(), FORCED_WAIT)) {
            log.warn("{} (pid {}) survived SIGKILL for {} s", this, current.pid(), FORCED_WAIT.toSeconds());
        }
    }

    /** {@return the name, with the port once known: {@code Redis on port 6379}} */
    @Override
    public String toString() {
        return port < 0 ? name : name + " on port " + port;
    }
}
