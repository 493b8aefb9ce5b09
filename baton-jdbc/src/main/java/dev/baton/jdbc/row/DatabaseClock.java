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
 * Tells, on this JVM's monotonic clock, the earliest moment the database's clock can show a given
 * time, so that a grant handed to this client by a release ({@link JdbcLine}) counts its validity
 * from the hand-off. A reading of the database's clock sent at {@code s} says {@code d}, so the
 * database shows {@code t} no earlier than {@code s + (t - d)}, less the clocks' drift since (NTP
 * slews by at most 500 ppm); a reading is used for {@link #MAX_AGE}. Not covered: the database's
 * clock stepped forward, which frees every lease on it early for every client alike.
 */
final class DatabaseClock {
    static final Duration MAX_AGE = Duration.ofSeconds(10);
    /** The most two clocks' rates differ by under NTP, in parts per million. */
    private static final long DRIFT_PPM = 500;
    /** The database's readings come in microseconds or milliseconds: their rounding, and then some. */
    private static final long ROUNDING_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final JdbcConnections connections;
    private final Supplier<Dialect> dialect;
    private final ReentrantLock reading = new ReentrantLock();
    private volatile Reading last;

    /** The database's clock said {@code database} in answer to a query sent at {@code sentNanos}. */
    private record Reading(long sentNanos, Instant database) {}

    /** @param dialect the database's dialect, asked when a reading is taken */
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

    /**
     * {@code handed} as valid as its expiry on the database's clock allows, counted from now: its full
     * lease time when that much is left, what is left when less, or null when nothing is.
     *
     * @throws SQLException if a new reading was needed and the database could not be asked
     */
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
