package dev.baton.check;

import dev.baton.testsupport.ForkedJava;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A forked {@link CheckClient} JVM, kept between runs: starting one is most of a client's CPU (its
 * classes loaded, Netty, Lettuce and the backends' clients initialised), and a run needs a live
 * process to kill, stop and cut off, not a fresh one. A JVM that finished its run cleanly goes back
 * to an idle pool of this JVM, where the next run takes it (one that ran the same kind of client
 * first, see {@link #idle}); one that was killed, did
 * not finish in time or served {@link #MAX_RUNS} runs is never reused.
 *
 * <p>Each run still has its own subject, connections, lock names and random sequence (the client
 * opens them at the run's start and closes them at its end), so a run's history does not depend on
 * which JVM served it, nor on what served it before.
 */
final class ClientJvm {
    /** Runs one JVM serves before it exits: a bound on what a subject that leaks (threads, buffers) can pile up. */
    static final int MAX_RUNS = 10;

    /** How long a JVM past {@link #MAX_RUNS} may take to exit before it is killed. */
    private static final Duration EXIT_WAIT = Duration.ofSeconds(5);

    private static final Queue<ClientJvm> IDLE = new ConcurrentLinkedQueue<>();

    private static final Consumer<String> IGNORE = line -> {};

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ClientJvm::closeIdle, "check-client-jvms"));
    }

    /** Ends the JVMs kept idle for later runs. */
    static void closeIdle() {
        ClientJvm idle;
        while ((idle = IDLE.poll()) != null) {
            idle.process.close();
        }
    }

    private final ForkedJava process;
    private volatile Consumer<String> lines = IGNORE;
    private volatile CountDownLatch finished = new CountDownLatch(1);
    private final Set<String> kinds = ConcurrentHashMap.newKeySet();
    private int runs;
    private boolean reusable;

    private ClientJvm() {
        this.process = ForkedJava.start(
                CheckClient.class.getName(),
                List.of("-Xmx96m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"),
                List.of(),
                this::read);
    }

    /**
     * {@return an idle JVM left by an earlier run, or a new one; {@code lines} gets its standard
     * output from now on, and the run starts with {@code arguments}}
     */
    static ClientJvm take(List<String> arguments, Consumer<String> lines) {
        String kind = kind(arguments);
        ClientJvm idle;
        while ((idle = idle(kind)) != null) {
            try {
                idle.begin(kind, arguments, lines);
                return idle;
            } catch (UncheckedIOException e) {
                idle.process.close(); // it exited while idle: take another
            }
        }
        ClientJvm jvm = new ClientJvm();
        jvm.begin(kind, arguments, lines);
        return jvm;
    }

    /**
     * An idle JVM, one that already ran this kind of client where there is one: its classes are
     * loaded and its code compiled, which is most of a client's CPU the first time it runs a kind.
     */
    private static ClientJvm idle(String kind) {
        for (ClientJvm jvm : IDLE) {
            if (jvm.kinds.contains(kind) && IDLE.remove(jvm)) {
                return jvm;
            }
        }
        return IDLE.poll();
    }

    /** The subject and the URI's scheme (the backend's client), e.g. {@code baton redis}. */
    private static String kind(List<String> arguments) {
        String subject = "";
        String scheme = "";
        for (String argument : arguments) {
            if (argument.startsWith("subject=")) {
                subject = argument.substring("subject=".length());
            } else if (argument.startsWith("uri=")) {
                int end = argument.indexOf("://");
                scheme = end < 0 ? "" : argument.substring("uri=".length(), end);
            }
        }
        return subject + " " + scheme;
    }

    private void begin(String kind, List<String> arguments, Consumer<String> lines) {
        kinds.add(kind);
        runs++;
        reusable = false;
        finished = new CountDownLatch(1);
        this.lines = lines;
        process.send(CheckClient.RUN + " " + String.join(" ", arguments));
    }

    private void read(String line) {
        if (line.equals(CheckClient.FINISHED)) {
            lines = IGNORE;
            finished.countDown();
        } else {
            lines.accept(line);
        }
    }

    ForkedJava process() {
        return process;
    }

    /** Asks the client to finish its current hold and close the run's subject. */
    void finish() {
        try {
            process.send(CheckClient.FINISH);
        } catch (UncheckedIOException e) {
            // the client is gone (killed): nothing to finish
        }
    }

    /**
     * Waits until the client has finished its run (every line of the run read) or exited, until
     * {@code deadline} ({@link System#nanoTime()}); kills it after.
     */
    void awaitFinish(long deadline) throws InterruptedException {
        CountDownLatch done = finished;
        while (!done.await(
                Math.min(50, Math.max(0, deadline - System.nanoTime()) / 1_000_000), TimeUnit.MILLISECONDS)) {
            if (!process.isAlive() || System.nanoTime() - deadline >= 0) {
                process.kill();
                return;
            }
        }
        reusable = process.isAlive();
    }

    /**
     * Ends the run: back to the idle pool if it finished cleanly; past {@link #MAX_RUNS}, told to exit
     * (the end of its input) and given a moment to; killed otherwise.
     */
    void release() throws InterruptedException {
        lines = IGNORE;
        if (reusable && runs < MAX_RUNS) {
            reusable = false;
            IDLE.add(this);
            return;
        }
        if (reusable) {
            process.closeInput();
            process.awaitExit(EXIT_WAIT);
        }
        process.close();
    }
}
