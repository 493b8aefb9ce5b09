package dev.baton.tck;

import dev.baton.testsupport.ForkedJava;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/** A child JVM running {@link ForkedLockClient} with this JVM's class path. */
final class ForkedJvm implements AutoCloseable {
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final ForkedJava process;

    private ForkedJvm(String... args) {
        this.process = ForkedJava.start(ForkedLockClient.class.getName(), List.of(), List.of(args), lines::add);
    }

    static ForkedJvm start(String... args) {
        return new ForkedJvm(args);
    }

    /** Waits for a line starting with {@code prefix} and returns the rest of it. */
    String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        String line = Await.next(
                lines,
                text -> text.startsWith(prefix),
                timeout,
                () -> "child " + process.pid() + " printed no '" + prefix + "' line within " + timeout + " (alive="
                        + process.isAlive() + "); its stderr:\n" + process.stderrTail());
        return line.substring(prefix.length()).trim();
    }

    int awaitExit(Duration timeout) throws InterruptedException {
        OptionalInt exit = process.awaitExit(timeout);
        if (exit.isEmpty()) {
            throw new AssertionError("child " + process.pid() + " did not exit within " + timeout + "; stderr:\n"
                    + process.stderrTail());
        }
        return exit.getAsInt();
    }

    /** SIGKILL: the child gets no chance to release anything. */
    void kill9() throws InterruptedException {
        process.kill();
    }

    /** SIGSTOP: the child is frozen, its connections open, until {@link #resume()}. */
    void stop() throws InterruptedException {
        process.stop();
    }

    /** SIGCONT. */
    void resume() throws InterruptedException {
        process.resume();
    }

    /** Closes the child's standard input: the signal of the modes that wait for it. */
    void closeInput() {
        process.closeInput();
    }

    String stderrTail() {
        return process.stderrTail();
    }

    @Override
    public void close() {
        process.close();
    }
}
