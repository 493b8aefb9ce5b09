package dev.baton.testsupport;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Time bounds for tests, in one place, on the JDK alone: the arithmetic behind the kit's {@code
 * KitTime} (which delegates here), usable by tests that cannot depend on the kit (baton-core's own).
 * Every bound a test waits for or asserts is built here: from a lease ({@link #LEASE}), plus {@link
 * #SLACK} for scheduling, stretched by the CPU pressure the machine measured ({@link
 * MachineStalls}): a bound that holds on an idle machine also holds on a 2-core one whose cores
 * other builds keep busy, because the time the test's threads spent waiting for a core is added, not
 * guessed.
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
 * <p>Neither makes a slow implementation pass: a bound never grows past {@link #MAX_STRETCH} times
 * its idle value (twice for the first kind), and on an idle machine every bound is exactly its idle
 * value. Waits are measured on the monotonic clock, never the wall clock.
 */
public final class TestTime {
    /** Lease time for most tests: short so that expiry tests finish quickly. */
    public static final Duration LEASE = Duration.ofSeconds(2);

    /** Bound on one backend operation on an idle machine; see {@link #operationTimeout()}. */
    public static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(2);

    /** Tolerance added to every time bound: scheduling, JIT, GC. */
    public static final Duration SLACK = Duration.ofSeconds(3);

    /**
     * How late after a deadline of its own (a lease's validity, an operation timeout) the code under
     * test may act on an idle machine: a timer's wake-up, a call cut off, a GC pause. Shorter than
     * {@link #SLACK}, so that a bound that proves "at the deadline, not later" stays close to it.
     */
    public static final Duration PAST_DEADLINE = Duration.ofMillis(1500);

    /**
     * How long after a dead holder's lock came free a client waiting for it must hold it: a waiter's
     * wake-up or next poll plus one grant.
     */
    public static final Duration TAKE_OVER = Duration.ofSeconds(1);

    /**
     * Bound on a fresh JVM's or server's first answer: class loading, JIT and a driver's first
     * connection on a starved machine. Not stretched: it already is the bound of a starved machine.
     */
    public static final Duration COLD_START = Duration.ofSeconds(60);

    /**
     * Bound on a closed client's threads to end on an idle machine: its executors' shutdown (Netty's
     * event loops wait out a quiet period) and the release of what it held.
     */
    public static final Duration CLOSE = Duration.ofSeconds(10);

    /**
     * The most one grant of a contended lock takes on an idle machine, on the slowest server the tests
     * run (Azurite answers one request at a time): the next waiter's poll (at most 50 ms in the kit)
     * plus its round trips. A run of many grants is bounded by their number ({@link #bulkWork(int)}).
     */
    public static final Duration HAND_OVER = Duration.ofMillis(120);

    /**
     * The most a wait the test times itself ({@link Stopwatch}, {@link Await}) grows on a busy
     * machine: this many times its value on an idle one.
     */
    public static final double MAX_STRETCH = 4;

    private TestTime() {}

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
        return 1 + MachineStalls.recentShare();
    }

    /**
     * The bound on something that takes {@code expected} on an idle machine, to hand to the code
     * under test before the wait (an acquire's timeout, a future's).
     *
     * @param expected what it takes on an idle machine
     * @return {@code (expected + SLACK) * stretch()}
     */
    public static Duration bound(Duration expected) {
        return stretched(expected.plus(SLACK));
    }

    /**
     * How long a test gives an acquisition of a free lock, or any other call of a few round trips
     * that should simply succeed: one operation timeout plus {@link #SLACK}, stretched.
     *
     * @return {@code bound(OPERATION_TIMEOUT)}
     */
    public static Duration grant() {
        return bound(OPERATION_TIMEOUT);
    }

    /**
     * As {@link #grant()}, for a client whose operation timeout is not the tests' usual one.
     *
     * @param operationTimeout the client's operation timeout
     * @return {@code bound(operationTimeout)}
     */
    public static Duration grant(Duration operationTimeout) {
        return bound(operationTimeout);
    }

    /**
     * Bound on a run of {@code grants} grants of contended locks on an idle machine (threads,
     * clients or processes looping on one name), for the test to wait on with {@link Await}, which
     * lengthens it by the stall measured meanwhile. A bound against a hang that says what hung, not a
     * speed target: it grows with the work, so a larger run never needs a number of its own.
     *
     * @param grants how many grants the run makes
     * @return {@code HAND_OVER * grants + SLACK}
     */
    public static Duration bulkWork(int grants) {
        return HAND_OVER.multipliedBy(grants).plus(SLACK);
    }

    /**
     * The operation timeout of a test's clients: {@link #OPERATION_TIMEOUT} stretched by the
     * machine's recent CPU pressure, so that a server that shares the cores with other builds is not
     * reported unreachable for being slow.
     *
     * @return {@code OPERATION_TIMEOUT * stretch()}
     */
    public static Duration operationTimeout() {
        return operationTimeout(OPERATION_TIMEOUT);
    }

    /**
     * An operation timeout for a server slower than usual (one that answers requests one at a time
     * on a single thread), stretched like {@link #operationTimeout()}.
     *
     * @param idle the operation timeout that server needs on an idle machine
     * @return {@code idle * stretch()}
     */
    public static Duration operationTimeout(Duration idle) {
        return stretched(idle);
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
        return stretched(idle);
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

    /**
     * Milliseconds since {@code startNanos}.
     *
     * @param startNanos a {@link System#nanoTime()} reading
     * @return the milliseconds elapsed on the monotonic clock
     */
    public static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static Duration stretched(Duration idle) {
        return Duration.ofNanos((long) (idle.toNanos() * stretch()));
    }

    /**
     * An interval started at creation, with the CPU stall the machine measured over it ({@link
     * MachineStalls}). A bound asserted on it ({@link #allows(Duration)}) is the idle bound plus the
     * stall, at most {@link #MAX_STRETCH} times the idle bound.
     */
    public static final class Stopwatch {
        private final long startNanos = System.nanoTime();
        private final long stallMark = MachineStalls.mark();

        private Stopwatch() {}

        /**
         * Time since the start.
         *
         * @return milliseconds on the monotonic clock
         */
        public long millis() {
            return millisSince(startNanos);
        }

        /**
         * CPU stall since the start.
         *
         * @return milliseconds during which runnable tasks waited for a core
         */
        public long stalledMillis() {
            return MachineStalls.millisSince(stallMark);
        }

        /**
         * The bound to check an interval against, given its idle bound.
         *
         * @param idle the bound on an idle machine
         * @return {@code idle} plus the stall measured so far, at most {@link #MAX_STRETCH} times {@code
         *     idle}
         */
        public Duration allows(Duration idle) {
            long extra = Math.min(stalledMillis(), (long) (idle.toMillis() * (MAX_STRETCH - 1)));
            return idle.plusMillis(extra);
        }

        /**
         * Whether a wait of {@code idle} has run out: more time than {@code idle} plus the stall
         * measured meanwhile (see {@link #allows(Duration)}).
         *
         * @param idle the bound on an idle machine
         * @return {@code true} once {@link #millis()} exceeds {@link #allows(Duration)}
         */
        public boolean hasPassed(Duration idle) {
            long elapsed = millis();
            return elapsed > idle.toMillis() && elapsed > allows(idle).toMillis();
        }

        /**
         * How to describe the interval in a failure message.
         *
         * @return for example {@code 5210 ms, 2300 ms of it with runnable tasks waiting for a core}
         */
        @Override
        public String toString() {
            return millis() + " ms, " + stalledMillis() + " ms of it with runnable tasks waiting for a core";
        }
    }
}
