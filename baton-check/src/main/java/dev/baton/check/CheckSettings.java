package dev.baton.check;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How one check run works.
 *
 * @param clients client JVMs running the workload at once
 * @param duration how long each run (one target, one fault) lasts
 * @param leaseTime the lease of every hold (ZooKeeper: the session timeout)
 * @param work the time spent inside most critical sections before the fenced write (one in ten
 *     takes twice the lease instead)
 * @param locks how many lock names the clients share
 * @param seed the seed of every random choice: which lock, when a fault comes, whom it hits
 */
public record CheckSettings(int clients, Duration duration, Duration leaseTime, Duration work, int locks, long seed) {

    public CheckSettings {
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(leaseTime, "leaseTime");
        Objects.requireNonNull(work, "work");
        if (clients < 2) {
            throw new IllegalArgumentException("a check needs at least 2 clients to find overlaps, got " + clients);
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("the duration must be positive, got " + duration);
        }
        if (leaseTime.compareTo(Duration.ofMillis(500)) < 0) {
            throw new IllegalArgumentException("the lease time must be at least 500ms, got " + leaseTime);
        }
        if (work.isNegative() || work.compareTo(leaseTime) >= 0) {
            throw new IllegalArgumentException("the work inside a critical section must be between 0 and the lease"
                    + " time (" + leaseTime + "), got " + work);
        }
        if (locks < 1) {
            throw new IllegalArgumentException("a check needs at least one lock name, got " + locks);
        }
    }

    /** 5 clients, 20 s per run, 2 s leases, 20 ms of work, 2 locks, seed 1. */
    public static CheckSettings defaults() {
        return new CheckSettings(5, Duration.ofSeconds(20), Duration.ofSeconds(2), Duration.ofMillis(20), 2, 1);
    }

    public CheckSettings withDuration(Duration duration) {
        return new CheckSettings(clients, duration, leaseTime, work, locks, seed);
    }

    public CheckSettings withSeed(long seed) {
        return new CheckSettings(clients, duration, leaseTime, work, locks, seed);
    }

    public CheckSettings withLeaseTime(Duration leaseTime) {
        return new CheckSettings(clients, duration, leaseTime, work, locks, seed);
    }

    /**
     * {@return these settings for a backend whose leases last at least {@code minimum}: the lease
     * raised to it, and the duration stretched in proportion, so that a run still sees as many faults;
     * unchanged where the lease is long enough already}
     */
    public CheckSettings withMinimumLease(Duration minimum) {
        if (leaseTime.compareTo(minimum) >= 0) {
            return this;
        }
        Duration stretched = Duration.ofMillis(duration.toMillis() * minimum.toMillis() / leaseTime.toMillis());
        return new CheckSettings(clients, stretched, minimum, work, locks, seed);
    }

    public CheckSettings withClients(int clients) {
        return new CheckSettings(clients, duration, leaseTime, work, locks, seed);
    }

    /** How long a stopped or cut-off holder stays so: past its lease, so that it loses the lock. */
    Duration isolation() {
        return leaseTime.multipliedBy(3).dividedBy(2);
    }

    /** The work of one hold in ten: twice the lease, so that it lives on renewals. */
    Duration longWork() {
        return leaseTime.multipliedBy(2);
    }

    /** The mean pause between two faults: room for the fault, its lease to run out and recovery. */
    Duration faultGap() {
        return leaseTime.plusMillis(500);
    }

    /** {@code count} lock names for one run, distinct per run so that runs never meet. */
    List<String> lockNames(String run, int count) {
        return java.util.stream.IntStream.range(0, count)
                .mapToObj(i -> run + "-" + i)
                .toList();
    }
}
