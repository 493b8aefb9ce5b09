package dev.baton.check;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What the checker found in one run.
 *
 * @param operations holds granted (critical sections entered)
 * @param failures attempts that failed with an error (while a fault lasted)
 * @param overlaps holds granted while another client still held the same lock
 * @param isolatedOverlaps those of them where every such other holder was stopped or cut off at the time
 *     (and did not, back at work, still believe its lease valid after the grant), or had already been
 *     told that it lost the lock (its lease ended without an answer to its renewals)
 * @param longestOverlap the longest of them
 * @param staleCaught writes from a holder that was no longer the latest, refused by the fence
 * @param staleAccepted such writes the resource accepted after it had accepted a write of the newer
 *     holder (0 wherever the fence works: the tokens went backwards otherwise)
 * @param staleUnfenceable such writes that came before the newer holder wrote anything: accepted, as
 *     no fence can tell them from the last write of the older holder
 * @param freshRefused writes of the latest holder the fence refused (its token went backwards)
 * @param unreportedLosses holds another client took over while the holder ran, and was never told
 * @param recoveries for each holder killed while holding, the time until the lock was granted again
 * @param neverRecovered killed holders whose lock was never granted again before the run ended
 * @param wakeupsPerRelease waiters woken per release, where the subject counts them (the herd)
 * @param timeline a few seconds around the first overlap no fault explains, else the longest; null if none
 */
public record CheckResult(
        long operations,
        long failures,
        int overlaps,
        int isolatedOverlaps,
        Duration longestOverlap,
        int staleCaught,
        int staleAccepted,
        int staleUnfenceable,
        int freshRefused,
        int unreportedLosses,
        List<Duration> recoveries,
        int neverRecovered,
        double wakeupsPerRelease,
        Timeline timeline) {

    public CheckResult {
        recoveries = List.copyOf(recoveries);
    }

    /** {@return the longest recovery, or null when no holder was killed while holding} */
    public Duration recoveryMax() {
        return recoveries.isEmpty() ? null : Collections.max(recoveries);
    }

    /** {@return the median recovery, or null when no holder was killed while holding} */
    public Duration recoveryMedian() {
        if (recoveries.isEmpty()) {
            return null;
        }
        List<Duration> sorted = new ArrayList<>(recoveries);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    /**
     * {@return overlaps whose earlier holder ran freely (neither stopped nor cut off), or still
     * believed its lease valid after the later grant}
     */
    public int unexplainedOverlaps() {
        return overlaps - isolatedOverlaps;
    }
}
