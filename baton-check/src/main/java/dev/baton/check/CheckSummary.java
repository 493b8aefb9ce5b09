package dev.baton.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a seed sweep found for one backend: how many runs, how many broke a guarantee, how many of a
 * naive lock's runs found nothing, and the worst run with its seed and fault, to run it again.
 *
 * @param target the target's id
 * @param runs the runs made
 * @param violations runs whose verdict is {@link CheckRow.Verdict#VIOLATION}
 * @param notFound runs of a naive lock whose defect the checker did not find ({@link
 *     CheckRow.Verdict#NAIVE_MISSED})
 * @param worst the worst run: a violation or a naive lock not caught first, then the most stale
 *     writes accepted, losses not reported, unexplained overlaps, overlaps
 */
public record CheckSummary(String target, int runs, int violations, int notFound, CheckRow worst) {

    /** Worst first. */
    static final Comparator<CheckRow> SEVERITY = Comparator.<CheckRow>comparingInt(r ->
                    r.verdict() == CheckRow.Verdict.VIOLATION || r.verdict() == CheckRow.Verdict.NAIVE_MISSED ? 1 : 0)
            .thenComparingInt(r -> r.result().staleAccepted())
            .thenComparingInt(r -> r.result().unreportedLosses())
            .thenComparingInt(r -> r.result().unexplainedOverlaps())
            .thenComparingInt(r -> r.result().overlaps())
            .reversed();

    /** {@return one summary per target, in the order the rows first name them} */
    public static List<CheckSummary> of(List<CheckRow> rows) {
        Map<String, List<CheckRow>> byTarget = new LinkedHashMap<>();
        for (CheckRow row : rows) {
            byTarget.computeIfAbsent(row.target(), k -> new ArrayList<>()).add(row);
        }
        List<CheckSummary> summaries = new ArrayList<>();
        byTarget.forEach((target, ofTarget) -> summaries.add(new CheckSummary(
                target,
                ofTarget.size(),
                (int) ofTarget.stream()
                        .filter(r -> r.verdict() == CheckRow.Verdict.VIOLATION)
                        .count(),
                (int) ofTarget.stream()
                        .filter(r -> r.verdict() == CheckRow.Verdict.NAIVE_MISSED)
                        .count(),
                ofTarget.stream().sorted(SEVERITY).findFirst().orElseThrow())));
        return summaries;
    }

    /** {@return whether every run kept its guarantees and every naive lock was caught} */
    public boolean clean() {
        return violations == 0 && notFound == 0;
    }
}
