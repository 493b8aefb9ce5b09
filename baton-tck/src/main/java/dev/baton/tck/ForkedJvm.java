package dev.baton.tck;

import dev.baton.testsupport.ForkedJava;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

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
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long remaining = deadline - System.nanoTime();
            String line = lines.poll(Math.max(0, remaining), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("child " + process.pid() + " printed no '" + prefix + "' line within "
                        + timeout + " (alive=" + process.isAlive() + "); its stderr:\n" + process.stderrTail());
            }
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
        }
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

    String stderrTail() {
        return process.stderrTail();
    }

    @Override
    public void close() {
        process.close();
    }
}
