package dev.baton.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Where the log records of Baton and of the client libraries (ZooKeeper, Curator, Lettuce, Netty,
 * Hikari, the JDBC drivers) go when the command line runs. They all reach java.util.logging: the
 * libraries through SLF4J's JDK binding (slf4j-jdk14), the PostgreSQL driver directly. Unlike
 * slf4j-simple, which always prints a throwable's stack trace, java.util.logging lets one formatter
 * decide, and its levels can be changed after the first logger exists.
 *
 * <p>By default the command speaks in one line per failure. It reports a failure itself (an
 * unreachable backend, a lost lease), so the warnings that lead up to it or follow from it stay out
 * of the way: a ZooKeeper client warns once per reconnect attempt, Baton when it retries a renewal,
 * when the lease is lost and when releasing the lost lease fails. Only errors are logged, one line
 * each, without stack trace; the embedded ZooKeeper servers' records not at all. {@code --verbose}
 * shows every warning, Baton's, the client libraries' and the embedded servers', with its stack trace.
 */
final class CliLogging {
    /**
     * The parent of every logger. Held here because java.util.logging keeps loggers weakly: a level
     * set on a logger nobody references could vanish with it.
     */
    private static final Logger ROOT = Logger.getLogger("");

    /**
     * The ZooKeeper servers that {@code baton bench} and {@code baton check} run inside the command's
     * own JVM. {@code check} kills and restarts them on purpose, and they log each dropped peer or
     * client connection as an error; what those faults did is the command's own report.
     */
    private static final Logger EMBEDDED_ZOOKEEPER_SERVERS = Logger.getLogger("org.apache.zookeeper.server");

    private CliLogging() {}

    /** Sends every log record to {@code err}, one line each unless {@code verbose}. */
    static void configure(boolean verbose, PrintWriter err) {
        for (Handler handler : ROOT.getHandlers()) {
            ROOT.removeHandler(handler);
        }
        ROOT.setLevel(verbose ? Level.WARNING : Level.SEVERE);
        EMBEDDED_ZOOKEEPER_SERVERS.setLevel(verbose ? null : Level.OFF);
        ROOT.addHandler(new WriterHandler(err, verbose ? new FullFormatter() : new OneLineFormatter()));
    }

    /** Publishes to the command line's error writer, so tests capture the log with the messages. */
    private static final class WriterHandler extends Handler {
        private final PrintWriter err;

        WriterHandler(PrintWriter err, Formatter formatter) {
            this.err = err;
            setFormatter(formatter);
            setLevel(Level.ALL);
        }

        @Override
        public void publish(LogRecord record) {
            if (isLoggable(record)) {
                // One print per record: PrintWriter writes a string whole, so lines never interleave.
                err.print(getFormatter().format(record));
                err.flush();
            }
        }

        @Override
        public void flush() {
            err.flush();
        }

        @Override
        public void close() {
            flush();
        }
    }

    /** {@code baton: warning: message: cause} on one line, no stack trace. */
    static final class OneLineFormatter extends Formatter {
        @Override
        public String format(LogRecord record) {
            StringBuilder line = new StringBuilder("baton: ")
                    .append(record.getLevel() == Level.SEVERE ? "error" : "warning")
                    .append(": ")
                    .append(formatMessage(record));
            if (record.getThrown() != null) {
                line.append(": ").append(record.getThrown());
            }
            return line.toString().replaceAll("\\R+", " ") + System.lineSeparator();
        }
    }

    /** Time, level, thread, logger, message and the whole stack trace: what {@code --verbose} asks for. */
    static final class FullFormatter extends Formatter {
        private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT);

        @Override
        public String format(LogRecord record) {
            StringWriter text = new StringWriter();
            PrintWriter out = new PrintWriter(text);
            out.printf(
                    Locale.ROOT,
                    "%s %s [%s] %s - %s%n",
                    TIME.format(record.getInstant().atZone(ZoneId.systemDefault())),
                    record.getLevel(),
                    Thread.currentThread().getName(),
                    record.getLoggerName(),
                    formatMessage(record));
            if (record.getThrown() != null) {
                record.getThrown().printStackTrace(out);
            }
            out.flush();
            return text.toString();
        }
    }
}
