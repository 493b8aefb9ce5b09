package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Critical sections by many threads, each with its own lock handle; checks exclusion. */
final class CriticalSections {
    final AtomicInteger occupancy = new AtomicInteger();
    final AtomicInteger overlaps = new AtomicInteger();
    final List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
    long counter; // deliberately not atomic: only the lock protects it

    /**
     * Runs {@code iterations} critical sections under {@code lock}.
     *
     * @param wait the bound on each acquisition: the whole run's, since a waiter may be passed over
     *     while every other one takes its turns
     */
    void run(DistributedLock lock, int iterations, Duration wait) {
        for (int i = 0; i < iterations; i++) {
            try (Lease lease = lock.acquire(wait)) {
                enter(lease);
                exit();
            }
        }
    }

    /** Enters the critical section under {@code lease}: counts an overlap, records the token. */
    void enter(Lease lease) {
        if (occupancy.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
        tokens.add(lease.fencingToken());
        long seen = counter;
        Thread.yield();
        counter = seen + 1;
    }

    /** Leaves the critical section, before the lease is released. */
    void exit() {
        occupancy.decrementAndGet();
    }

    /** Fails unless every token of {@code tokens} exceeds the one before it. */
    static void assertStrictlyIncreasing(List<Long> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i))
                    .as("fencing token #%d must exceed #%d", i, i - 1)
                    .isGreaterThan(tokens.get(i - 1));
        }
    }
}
