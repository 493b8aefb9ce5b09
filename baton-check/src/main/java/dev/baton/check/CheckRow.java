package dev.baton.check;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One row of a check report: one target under one fault, what the checker found and what it means.
 *
 * @param target the target's id
 * @param description what ran
 * @param naive whether the subject is a naive lock (its violations are expected)
 * @param peer whether the subject is a peer library on a Baton target's servers (what breaks is
 *     reported as found, not as a violation of Baton's)
 * @param strict whether the backend promises no overlap unless a holder was stopped or cut off
 * @param faults the faults injected, in turn
 * @param faultsInjected how many faults were injected
 * @param duration how long the run lasted
 * @param seed the seed of the run ({@code --seed} re-runs it)
 * @param result what the checker found
 * @param availability grants per second of this run relative to the same target's run without
 *     faults (1.0: as many), or NaN when that run was not made
 */
public record CheckRow(
        String target,
        String description,
        boolean naive,
        boolean peer,
        boolean strict,
        List<Fault> faults,
        int faultsInjected,
        Duration duration,
        long seed,
        CheckResult result,
        double availability) {

    public CheckRow {
        faults = List.copyOf(faults);
    }

    /** A row of Baton or of a naive lock whose availability was not measured. */
    public CheckRow(
            String target,
            String description,
            boolean naive,
            boolean strict,
            List<Fault> faults,
            int faultsInjected,
            Duration duration,
            long seed,
            CheckResult result) {
        this(target, description, naive, false, strict, faults, faultsInjected, duration, seed, result, Double.NaN);
    }

    /** {@return grants per second of this run} */
    public double grantsPerSecond() {
        return result.operations() / (duration.toNanos() / 1e9);
    }

    /** {@return this row with its availability measured against {@code baseline}, the run without faults} */
    public CheckRow comparedWith(CheckRow baseline) {
        double rate = baseline.grantsPerSecond();
        return new CheckRow(
                target,
                description,
                naive,
                peer,
                strict,
                faults,
                faultsInjected,
                duration,
                seed,
                result,
                rate > 0 ? grantsPerSecond() / rate : Double.NaN);
    }

    /** {@return the faults' ids, joined with '+'} */
    public String faultLabel() {
        return String.join("+", faults.stream().map(Fault::id).toList());
    }

    /** What a row means. */
    public enum Verdict {
        /** No overlap, every loss reported, no stale write accepted. */
        SAFE("safe"),
        /** Overlaps happened (as leases allow), but the fence caught every stale write and holders were told. */
        SAFE_WITH_FENCING("safe with fencing"),
        /** A guarantee was broken: a stale write accepted, a loss not reported, or a forbidden overlap. */
        VIOLATION("VIOLATION"),
        /** A naive lock whose violations the checker found, as it must. */
        NAIVE_CAUGHT("unsafe (found)"),
        /** A naive lock in which the checker found nothing: the run proves nothing. */
        NAIVE_MISSED("NOT FOUND"),
        /**
         * A peer library that, under the same faults, accepted a stale write or did not tell a holder
         * that it lost the lock: what happened, not a violation of Baton's.
         */
        PEER_UNSAFE("unsafe");

        private final String label;

        Verdict(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** {@return the verdict} */
    public Verdict verdict() {
        if (naive) {
            return violations().isEmpty() ? Verdict.NAIVE_MISSED : Verdict.NAIVE_CAUGHT;
        }
        if (!violations().isEmpty()) {
            return peer ? Verdict.PEER_UNSAFE : Verdict.VIOLATION;
        }
        return result.overlaps() == 0 ? Verdict.SAFE : Verdict.SAFE_WITH_FENCING;
    }

    /**
     * {@return what broke, one phrase each: for Baton, broken guarantees; for a naive lock, what the
     * checker found wrong with it; for a peer, what would be a broken guarantee in Baton (peers are
     * not held to strictness: no peer here promises it)}
     */
    public List<String> violations() {
        List<String> found = new ArrayList<>();
        if (result.staleAccepted() > 0) {
            found.add(result.staleAccepted() + " stale writes accepted after a newer holder's");
        }
        if (result.unreportedLosses() > 0) {
            found.add(result.unreportedLosses() + " losses never reported to the holder");
        }
        if (naive) {
            if (result.overlaps() > 0) {
                found.add(result.overlaps() + " overlapping holds");
            }
            if (result.neverRecovered() > 0) {
                found.add(result.neverRecovered() + " locks left taken forever by a dead holder");
            }
            if (result.wakeupsPerRelease() > 1.0) {
                found.add(String.format("herd: %.1f waiters woken per release", result.wakeupsPerRelease()));
            }
        } else if (strict && result.unexplainedOverlaps() > 0) {
            found.add(result.unexplainedOverlaps()
                    + " overlaps while the earlier holder ran freely or still believed its lease valid");
        }
        return found;
    }
}
