package dev.baton.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * Where a protocol subject's time goes: a histogram per named step (a statement, a wake-up), printed
 * as p50 / mean (count) when the subject closes.
 */
final class ProtocolTimings {
    private static final long MAX_NANOS = 10_000_000_000L;
    private final Map<String, ConcurrentHistogram> steps = new ConcurrentHashMap<>();

    /** Records one step; values outside 0 to 10 s (a clock read before the step began) are dropped. */
    void record(String step, long nanos) {
        if (nanos >= 0 && nanos < MAX_NANOS) {
            steps.computeIfAbsent(step, k -> new ConcurrentHistogram(3)).recordValue(nanos);
        }
    }

    @Override
    public String toString() {
        return "µs p50 / mean (count): "
                + steps.entrySet().stream()
                        .map(e -> e.getKey() + " " + e.getValue().getValueAtPercentile(50) / 1000 + " / "
                                + Math.round(e.getValue().getMean() / 1000) + " ("
                                + e.getValue().getTotalCount() + ")")
                        .sorted()
                        .toList();
    }
}
