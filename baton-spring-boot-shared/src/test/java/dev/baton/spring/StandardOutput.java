package dev.baton.spring;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What this JVM prints on standard output and error while it is open, still printed as well: the
 * console log of an application under test (logback's console appender writes to the current {@code
 * System.out}). Spring Boot's OutputCaptureExtension needs a newer JUnit than the build's.
 */
final class StandardOutput implements AutoCloseable {
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    StandardOutput() {
        System.setOut(tee(out));
        System.setErr(tee(err));
    }

    private PrintStream tee(PrintStream original) {
        return new PrintStream(
                new OutputStream() {
                    @Override
                    public void write(int b) {
                        original.write(b);
                        synchronized (captured) {
                            captured.write(b);
                        }
                    }

                    @Override
                    public void write(byte[] bytes, int offset, int length) {
                        original.write(bytes, offset, length);
                        synchronized (captured) {
                            captured.write(bytes, offset, length);
                        }
                    }
                },
                true,
                StandardCharsets.UTF_8);
    }

    /** Everything printed since this was opened. */
    String text() {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        System.setOut(out);
        System.setErr(err);
    }
}
