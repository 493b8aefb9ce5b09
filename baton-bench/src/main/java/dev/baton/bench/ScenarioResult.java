package dev.baton.bench;

import java.util.List;

/**
 * What one subject did in one scenario.
 *
 * @param subject the subject's name ({@link LockSubject#semaphoreName()} for a semaphore row)
 * @param scenario the scenario
 * @param pairsPerSecond median over the runs of acquire+release pairs per second
 * @param runRates pairs per second of each run
 * @param pairP50Micros median acquire+release latency, microseconds
 * @param pairP99Micros 99th percentile acquire+release latency, microseconds
 * @param handoffP50Micros contended lock rows: median time from a holder's release() call to the
 *     next holder's acquire returning, microseconds; NaN for uncontended and semaphore rows
 * @param handoffP99Micros as above, 99th percentile
 * @param overlaps critical sections that saw more holders inside than allowed (one for a lock, the
 *     permits for a semaphore); must be 0
 * @param errors acquire or release calls that failed
 * @param clientCpuMicrosPerPair CPU of the bench's JVM per pair over the measured runs (the clients,
 *     and a server that runs inside the JVM), microseconds; NaN if unknown
 * @param serverCpuMicrosPerPair CPU of the server processes the bench started, per pair,
 *     microseconds; NaN if none was seen (an external or in-JVM server)
 * @param fairness who got the grants of a contended row, and how long waiters waited; {@link
 *     Fairness#NOT_MEASURED} for uncontended rows
 */
public record ScenarioResult(
        String subject,
        Scenario scenario,
        double pairsPerSecond,
        List<Double> runRates,
        double pairP50Micros,
        double pairP99Micros,
        double handoffP50Micros,
        double handoffP99Micros,
        long overlaps,
        long errors,
        double clientCpuMicrosPerPair,
        double serverCpuMicrosPerPair,
        Fairness fairness) {
    public ScenarioResult {
        runRates = List.copyOf(runRates);
        java.util.Objects.requireNonNull(fairness, "fairness");
    }

    /** A row without fairness figures (uncontended, or made up by a test). */
    public ScenarioResult(
            String subject,
            Scenario scenario,
            double pairsPerSecond,
            List<Double> runRates,
            double pairP50Micros,
            double pairP99Micros,
            double handoffP50Micros,
            double handoffP99Micros,
            long overlaps,
            long errors,
            double clientCpuMicrosPerPair,
            double serverCpuMicrosPerPair) {
        this(
                subject,
                scenario,
                pairsPerSecond,
                runRates,
                pairP50Micros,
                pairP99Micros,
                handoffP50Micros,
                handoffP99Micros,
                overlaps,
                errors,
                clientCpuMicrosPerPair,
                serverCpuMicrosPerPair,
                Fairness.NOT_MEASURED);
    }

    /**
     * How grants were shared in a contended row, over all its measured runs. Every thread is a
     * client here: in C8 and S8 it is one (each thread has its own), in B8 the threads share one.
     * Read beside pairs/s: a lock that hands the grant straight back to the thread that released it
     * (barging) shows high pairs/s with a low share to another client and a skewed spread, while its
     * other waiters starve (a long maximum wait).
     *
     * @param toAnotherClientPercent of the grants that followed a release, the percentage that went
     *     to a thread other than the one that released last (100 for strict alternation, 0 when the
     *     releaser always takes it back); for a semaphore, "last" is the most recent release of any
     *     permit
     * @param waitP99Micros 99th percentile wait of an acquire call (call to return), microseconds
     * @param waitMaxMicros the longest wait of any acquire call, microseconds
     * @param minSharePercent the smallest share of all grants that one thread got, percent (12.5
     *     each is perfectly even for 8 threads); the least even run's when there are several
     * @param maxSharePercent the largest share, percent; the least even run's
     */
    public record Fairness(
            double toAnotherClientPercent,
            double waitP99Micros,
            double waitMaxMicros,
            double minSharePercent,
            double maxSharePercent) {

        /** No figures: an uncontended row, or a contended one that granted nothing. */
        public static final Fairness NOT_MEASURED =
                new Fairness(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

        /** Whether the row has figures. */
        public boolean measured() {
            return !Double.isNaN(toAnotherClientPercent);
        }
    }
}
