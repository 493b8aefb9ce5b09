package dev.baton.bench;

import java.util.List;

/**
 * What one subject did in one scenario.
 *
 * @param subject the subject's name
 * @param scenario the scenario
 * @param pairsPerSecond median over the runs of acquire+release pairs per second
 * @param runRates pairs per second of each run
 * @param pairP50Micros median acquire+release latency, microseconds
 * @param pairP99Micros 99th percentile acquire+release latency, microseconds
 * @param handoffP50Micros contended rows: median time from a holder's release() call to the next
 *     holder's acquire returning, microseconds; NaN for uncontended rows
 * @param handoffP99Micros as above, 99th percentile
 * @param overlaps critical sections that saw another holder inside (must be 0)
 * @param errors acquire or release calls that failed
 * @param clientCpuMicrosPerPair CPU of the bench's JVM per pair over the measured runs (the clients,
 *     and a server that runs inside the JVM), microseconds; NaN if unknown
 * @param serverCpuMicrosPerPair CPU of the server processes the bench started, per pair,
 *     microseconds; NaN if none was seen (an external or in-JVM server)
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
        double serverCpuMicrosPerPair) {
    public ScenarioResult {
        runRates = List.copyOf(runRates);
    }
}
