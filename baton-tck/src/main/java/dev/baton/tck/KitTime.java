package dev.baton.tck;

import dev.baton.testsupport.TestTime;
import java.time.Duration;

/**
 * The kit's time bounds, in one place, for the kit's properties and for every backend's own tests.
 * Every bound a test waits for or asserts is built here: from a lease ({@link #LEASE}, raised to the
 * backend's minimum by {@link LockBackendContract#lease(Duration)}), plus {@link #SLACK} for
 * scheduling, stretched by the CPU pressure the machine measured (the kernel's CPU pressure stall information): a bound
 * that holds on an idle machine also holds on a 2-core one whose cores other builds keep busy,
 * because the time the test's threads spent waiting for a core is added, not guessed.
 *
 * <p>Two kinds of bound:
 *
 * <ul>
 *   <li>a value handed to the code under test before the wait (an acquire timeout, an operation
 *       timeout): {@link #bound(Duration)}, {@link #grant()}, {@link #operationTimeout()}, stretched
 *       by the share of the last seconds during which the machine kept runnable tasks waiting
 *       ({@link #stretch()}, at most twice);
 *   <li>a wait the test does itself ({@link Await}) or a duration it asserts ({@link Stopwatch}):
 *       lengthened by the stall measured over that very wait.
 * </ul>
 *
 * <p>Neither makes a slow backend pass: a bound never grows past {@link #MAX_STRETCH} times its idle
 * value (twice for the first kind), and on an idle machine every bound is exactly its idle value. Waits are measured on the
 * monotonic clock, never the wall clock.
 *
 * <p>The arithmetic lives in baton-test-support ({@link TestTime}, on the JDK alone, so that
 * baton-core's own tests share it); this class is the kit's face of it and adds the kit's own bounds.
 */
public final class KitTime {
    /**
     * Lease time for most tests: short so that expiry tests finish quickly. A backend whose shortest
     * lease is longer ({@link LockBackendFixture#minimumLeaseTime()}) gets that instead.
     */
    public static final Duration LEASE = TestTime.LEASE;

    /** Bound on one backend operation in the kit on an idle machine; see {@link #operationTimeout()}. */
    public static final Duration OPERATION_TIMEOUT = TestTime.OPERATION_TIMEOUT;

    /** Tolerance added to every time bound: scheduling, JIT, GC. */
    public static final Duration SLACK = TestTime.SLACK;

    /**
     * How late after a deadline of its own (a lease's validity, an operation timeout) the code under
     * test may act on an idle machine: a timer's wake-up, a call cut off, a GC pause. Shorter than
     * {@link #SLACK}, so that a bound that proves "at the deadline, not later" stays close to it.
     */
    public static final Duration PAST_DEADLINE = TestTime.PAST_DEADLINE;

    /**
     * How long after a dead holder's lock came free a client waiting for it must hold it: a waiter's
     * wake-up or next poll plus one grant. Leader election promises a take-over within the freed
     * lease ({@link LockBackendFixture#freedAfter}) plus this.
     */
    public static final Duration TAKE_OVER = TestTime.TAKE_OVER;

    /**
     * Bound on a fresh JVM's or server's first answer: class loading, JIT and a driver's first
     * connection on a starved machine. Not stretched: it already is the bound of a starved machine.
     */
    public static final Duration COLD_START = TestTime.COLD_START;

    /**
     * Bound on a closed client's threads to end on an idle machine: its executors' shutdown (Netty's
     * event loops wait out a quiet period) and the release of what it held.
     */
    public static final Duration CLOSE = TestTime.CLOSE;

    /**
     * The most one grant of a contended lock takes on an idle machine, on the slowest server the kit
     * runs; see {@link #bulkWork(int)}.
     */
    public static final Duration HAND_OVER = TestTime.HAND_OVER;

    /**
     * The most grants one kit test waits for in one run: {@code MutualExclusionProperty}'s eight
     * threads of twenty-five critical sections each.
     */
    static final int LARGEST_RUN = 200;

    /**
     * Bound on one kit test (or a backend's own test with waits as long) as a whole, however it hangs:
     * JUnit fails it after this. Longer than the longest wait of a kit test ({@link #bulkWork(int)} of
     * the grants of its largest run) lengthened {@link #MAX_STRETCH} times by the stall, so that
     * on a busy machine the wait runs out first and says what it waited for; on its own it only stops
     * a test that hangs outside any wait.
     */
    public static final long TEST_TIMEOUT_SECONDS = 420;

    /**
     * The most a wait the test times itself ({@link Stopwatch}, {@link Await}) grows on a busy
     * machine: this many times its value on an idle one.
     */
    public static final double MAX_STRETCH = TestTime.MAX_STRETCH;

    private KitTime() {}

    /**
     * The factor by which the machine's recent CPU pressure stretches a bound handed to the code under
     * test: {@code 1 + s}, where {@code s} is the share of the last 10 or 60 seconds (the larger)
     * during which a runnable task waited for a core. It is a forecast, not a measurement of the
     * wait to come, so it stays modest: a machine whose cores are always contended doubles such
     * bounds (and the waits that end at them, such as a timeout a test provokes); the waits a test
     * times itself are lengthened by what was measured instead ({@link Stopwatch}).
     *
     * @return 1 on an idle machine (or where the kernel does not measure it), at most 2
     */
    public static double stretch() {
        return TestTime.stretch();
    }

    /**
     * The bound on something that takes {@code expected} on an idle machine, to hand to the code
     * under test before the wait (an acquire's timeout, a future's).
     *
     * @param expected what it takes on an idle machine
     * @return {@code (expected + SLACK) * stretch()}
     */
    public static Duration bound(Duration expected) {
        return TestTime.bound(expected);
    }

    /**
     * How long a test gives an acquisition of a free lock, or any other call of a few round trips
     * that should simply succeed: one operation timeout plus {@link #SLACK}, stretched.
     *
     * @return {@code bound(OPERATION_TIMEOUT)}
     */
    public static Duration grant() {
        return TestTime.grant();
    }

    /**
     * As {@link #grant()}, for a client whose operation timeout is not the kit's.
     *
     * @param operationTimeout the client's operation timeout
     * @return {@code bound(operationTimeout)}
     */
    public static Duration grant(Duration operationTimeout) {
        return TestTime.grant(operationTimeout);
    }

    /**
     * Bound on a run of {@code grants} grants of contended locks on an idle machine (threads,
     * clients or processes looping on one name), for the test to wait on with {@link Await}, which
     * lengthens it by the stall measured meanwhile: a bound against a hang that grows with the work,
     * not a speed target.
     *
     * @param grants how many grants the run makes
     * @return {@code HAND_OVER * grants + SLACK}
     */
    public static Duration bulkWork(int grants) {
        return TestTime.bulkWork(grants);
    }

    /**
     * The operation timeout of the kit's clients: {@link #OPERATION_TIMEOUT} stretched by the
     * machine's recent CPU pressure, so that a server that shares the cores with other builds (a
     * single-threaded one above all, such as Azurite) is not reported unreachable for being slow.
     *
     * @return {@code OPERATION_TIMEOUT * stretch()}
     */
    public static Duration operationTimeout() {
        return operationTimeout(OPERATION_TIMEOUT);
    }

    /**
     * An operation timeout for a server slower than the kit assumes (one that answers requests one
     * at a time on a single thread, such as Azurite), stretched like {@link #operationTimeout()}.
     *
     * @param idle the operation timeout that server needs on an idle machine
     * @return {@code idle * stretch()}
     */
    public static Duration operationTimeout(Duration idle) {
        return TestTime.operationTimeout(idle);
    }

    /**
     * A lease time for a test whose many renewals must keep up with it, stretched like {@link
     * #operationTimeout()}: renewing hundreds of leases at a third of a short lease needs the CPU
     * an idle machine gives, and a busy one gives less.
     *
     * @param idle the lease time on an idle machine
     * @return {@code idle * stretch()}
     */
    public static Duration lease(Duration idle) {
        return TestTime.lease(idle);
    }

    /**
     * Times an interval and the CPU stall measured over it, for a test that asserts how long
     * something took.
     *
     * @return a stopwatch started now
     */
    public static Stopwatch stopwatch() {
        return new Stopwatch();
    }

    /** Milliseconds since {@code startNanos}, a {@link System#nanoTime()} reading. */
    static long millisSince(long startNanos) {
        return TestTime.millisSince(startNanos);
    }

    /**
     * An interval started at creation, with the CPU stall the machine measured over it ({@link
     * TestTime.Stopwatch}, which this wraps). A bound asserted on it ({@link #allows(Duration)}) is the idle bound plus the
     * stall, at most {@link #MAX_STRETCH} times the idle bound.
     */
    public static final class Stopwatch {
        private final TestTime.Stopwatch timed = TestTime.stopwatch();

        private Stopwatch() {}

        /**
         * Time since the start.
         *
         * @return milliseconds on the monotonic clock
         */
        public long millis() {
            return timed.millis();
        }

        /**
         * CPU stall since the start.
         *
         * @return milliseconds during which runnable tasks waited for a core
         */
        public long stalledMillis() {
            return timed.stalledMillis();
        }

        /**
         * The bound to check an interval against, given its idle bound.
         *
         * @param idle the bound on an idle machine
         * @return {@code idle} plus the stall measured so far, at most {@link #MAX_STRETCH} times {@code
         *     idle}
         */
        public Duration allows(Duration idle) {
            return timed.allows(idle);
        }

        /**
         * Whether a wait of {@code idle} has run out: more time than {@code idle} plus the stall
         * measured meanwhile (see {@link #allows(Duration)}).
         *
         * @param idle the bound on an idle machine
         * @return {@code true} once {@link #millis()} exceeds {@link #allows(Duration)}
         */
        public boolean hasPassed(Duration idle) {
            return timed.hasPassed(idle);
        }

        /**
         * How to describe the interval in a failure message.
         *
         * @return for example {@code 5210 ms, 2300 ms of it with runnable tasks waiting for a core}
         */
        @Override
        public String toString() {
            return timed.toString();
        }
    }
}
