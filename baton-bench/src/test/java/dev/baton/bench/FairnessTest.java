package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/**
 * The runner's fairness figures, measured on two in-process locks whose fairness is known by
 * construction: this tests the runner, not a backend. One hands every grant back to the thread that
 * released it for as long as that thread lives; the other is a fair {@link ReentrantLock}, which
 * grants in arrival order, so a releaser that comes back queues behind the others.
 */
class FairnessTest {
    private static final Duration RUN = Duration.ofMillis(400);
    private final BenchRunner runner = new BenchRunner(new BenchSettings(Duration.ZERO, RUN, 1, 8), line -> {});
    /**
     * Each holder keeps the lock 1 ms, so that the other threads are back in the queue when it
     * releases: without it, on a busy machine, a releaser often finds nobody queued (the others
     * descheduled outside lock()) and takes the fair lock again.
     */
    private final BenchRunner holding =
            new BenchRunner(new BenchSettings(Duration.ZERO, RUN, 1, 8, Duration.ofMillis(1)), line -> {});

    @Test
    void aLockThatHandsEveryGrantBackToTheReleaserShowsNoShareToOthersASkewedSpreadAndALongWait() {
        ScenarioResult result = runner.run(new InProcessSubject("sticky", new StickyLock()), Scenario.C8);

        ScenarioResult.Fairness fairness = result.fairness();
        assertThat(result.overlaps()).isZero();
        assertThat(result.errors()).isZero();
        // The first holder keeps the lock for the whole run; the 7 others get one grant each after it ends.
        assertThat(fairness.toAnotherClientPercent()).isLessThan(5);
        assertThat(fairness.maxSharePercent()).isGreaterThan(90);
        assertThat(fairness.minSharePercent()).isLessThan(2);
        assertThat(fairness.waitMaxMicros())
                .as("a waiter waited for the holder's whole run")
                .isGreaterThanOrEqualTo(RUN.toNanos() / 2 / 1000.0);
        // The holder's own re-acquisitions (almost every grant) wait for nothing.
        assertThat(fairness.waitP99Micros()).isNotNegative().isLessThan(fairness.waitMaxMicros());
    }

    @Test
    void aFairLockHandsAlmostEveryGrantToAnotherThreadAndSpreadsThemEvenly() {
        ScenarioResult result = holding.run(new InProcessSubject("fair", new ReentrantLock(true)), Scenario.C8);

        ScenarioResult.Fairness fairness = result.fairness();
        assertThat(result.overlaps()).isZero();
        assertThat(result.errors()).isZero();
        assertThat(fairness.toAnotherClientPercent()).isGreaterThan(90);
        assertThat(fairness.minSharePercent()).isGreaterThan(5).isLessThanOrEqualTo(12.5);
        assertThat(fairness.maxSharePercent()).isGreaterThanOrEqualTo(12.5).isLessThan(25);
        assertThat(fairness.waitP99Micros()).isPositive().isLessThanOrEqualTo(fairness.waitMaxMicros());
    }

    @Test
    void uncontendedRowsHaveNoFairnessFigures() {
        ScenarioResult result = runner.run(new InProcessSubject("fair", new ReentrantLock(true)), Scenario.A8);
        assertThat(result.fairness()).isEqualTo(ScenarioResult.Fairness.NOT_MEASURED);
        assertThat(ResultTable.spread(result.fairness())).isEqualTo("-");
    }

    @Test
    void aSubjectWithoutSemaphoresGetsNoSemaphoreRow() {
        LockSubject subject = new InProcessSubject("fair", new ReentrantLock(true));
        assertThat(runner.runInterleaved(java.util.List.of(subject), Scenario.S8))
                .isEmpty();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> runner.run(subject, Scenario.S8))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fair has no semaphores");
    }

    /** Every client shares one in-process lock, whatever the name (the rows here use one name). */
    private record InProcessSubject(String name, java.util.concurrent.locks.Lock lock) implements LockSubject {
        @Override
        public Client newClient() {
            return new Client() {
                @Override
                public Held acquire(String lockName) {
                    lock.lock();
                    return lock::unlock;
                }

                @Override
                public void close() {}
            };
        }
    }

    /**
     * A lock that only the last thread to release it may take again while that thread is alive: a
     * waiter re-checks every 10 ms whether that thread has ended (threads do not announce their end).
     */
    private static final class StickyLock extends java.util.concurrent.locks.ReentrantLock {
        private static final long serialVersionUID = 1L;
        private transient Thread owner;
        private transient Thread lastReleaser;

        @Override
        public synchronized void lock() {
            Thread me = Thread.currentThread();
            while (owner != null || (lastReleaser != null && lastReleaser != me && lastReleaser.isAlive())) {
                try {
                    wait(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            owner = me;
        }

        @Override
        public synchronized void unlock() {
            lastReleaser = owner;
            owner = null;
            notifyAll();
        }
    }
}
