package dev.baton.jdbc.row;

import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.spi.Grant;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Maps the database's clock onto this JVM's monotonic clock from below, so a handed grant counts from
 * the hand-off (docs/lease-validity.md): a reading sent at {@code s} saying {@code d} means the database
 * shows {@code t} no earlier than {@code s + (t - d)}, less the drift since.
 */
final class DatabaseClock {
    static final Duration MAX_AGE = Duration.ofSeconds(10);
    private static final long DRIFT_PPM = 500; // NTP slews a clock by at most this
    private static final long ROUNDING_NANOS = TimeUnit.MILLISECONDS.toNanos(1); // readings round to µs or ms

    private final JdbcConnections connections;
    private final Supplier<Dialect> dialect;
    private final ReentrantLock reading = new ReentrantLock();
    private volatile Reading last;

    private record Reading(long sentNanos, Instant database) {}

    DatabaseClock(JdbcConnections connections, Supplier<Dialect> dialect) {
        this.connections = connections;
        this.dialect = dialect;
    }

    /** The earliest {@link System#nanoTime()} at which the database's clock can show {@code at}. */
    private long earliestNanos(Instant at) throws SQLException {
        Reading reading = current();
        long ahead = Duration.between(reading.database(), at).toNanos();
        long drift = Math.abs(ahead) / 1_000_000 * DRIFT_PPM;
        return reading.sentNanos() + ahead - drift - ROUNDING_NANOS;
    }

    /** {@code handed} valid for what is left of it on the database's clock, at most its lease; null if none. */
    Grant counted(Grant handed, Duration leaseTime) throws SQLException {
        long left = earliestNanos(handed.expiresAt()) - System.nanoTime();
        if (left <= 0) {
            return null;
        }
        return left >= leaseTime.toNanos() ? handed : handed.withValidity(Duration.ofNanos(left));
    }

    private Reading current() throws SQLException {
        Reading reading = last;
        if (reading != null && System.nanoTime() - reading.sentNanos() < MAX_AGE.toNanos()) {
            return reading;
        }
        this.reading.lock();
        try {
            reading = last;
            if (reading != null && System.nanoTime() - reading.sentNanos() < MAX_AGE.toNanos()) {
                return reading;
            }
            Dialect db = dialect.get();
            if (db == null) {
                throw new SQLException("the database is not known yet");
            }
            try (JdbcSession session = connections.open(false)) {
                long sent = System.nanoTime();
                Instant now = session.first("SELECT " + db.now(), rs -> db.instant(rs, 1))
                        .orElseThrow(() -> new SQLException("the database returned no time"));
                last = new Reading(sent, now);
                return last;
            }
        } finally {
            this.reading.unlock();
        }
    }
}
