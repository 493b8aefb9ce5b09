package dev.baton.jdbc.internal;

import java.time.Duration;
import java.time.Instant;

/** The time arithmetic the JDBC protocols share, within the ranges the servers accept. */
public final class JdbcTime {
    /** Longer leases are effectively infinite; the cap keeps the timestamp arithmetic in range. */
    static final long MAX_LEASE_MILLIS = Duration.ofDays(36_500).toMillis();

    /** idle_session_timeout and idle_in_transaction_session_timeout are ints of milliseconds. */
    private static final long MAX_IDLE_MILLIS = Integer.MAX_VALUE;

    /** MariaDB's wait_timeout takes at most a year, in whole seconds. */
    private static final long MAX_WAIT_TIMEOUT_SECONDS = 31_536_000;

    private JdbcTime() {}

    /** The lease in milliseconds, rounded up: a lease shorter than a millisecond must not be expired. */
    public static long leaseMillis(Duration leaseTime) {
        long nanos;
        try {
            nanos = leaseTime.toNanos();
        } catch (ArithmeticException tooLong) {
            return MAX_LEASE_MILLIS;
        }
        return Math.min(MAX_LEASE_MILLIS, Math.max(1, (nanos + 999_999) / 1_000_000));
    }

    /** Rounded up, and never 0, which means no timeout. */
    public static int queryTimeoutSeconds(Duration operationTimeout) {
        long millis = Math.max(1, operationTimeout.toMillis());
        return (int) Math.min(Integer.MAX_VALUE, (millis + 999) / 1000);
    }

    /** PostgreSQL's idle bound for a lease: the lease itself, or 0 (no bound) when it does not fit. */
    public static long idleMillis(long leaseMillis) {
        return leaseMillis > MAX_IDLE_MILLIS ? 0 : leaseMillis;
    }

    /** MariaDB's {@code wait_timeout} for a lease: whole seconds, rounded up, within its range. */
    public static long waitTimeoutSeconds(long leaseMillis) {
        return Math.max(1, Math.min(MAX_WAIT_TIMEOUT_SECONDS, (leaseMillis + 999) / 1000));
    }

    /** For a grant whose expiry the database did not return; informational, the core judges validity. */
    public static Instant expiry(long leaseMillis) {
        return Instant.now().plusMillis(leaseMillis);
    }
}
