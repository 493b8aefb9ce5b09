package dev.baton.bench;

import java.util.List;

/**
 * One backend's benchmark set-up: starts (or reaches) its server and offers the subjects to compare
 * on it, Baton first, then peers and raw baselines, all against the same server.
 */
public interface BenchBackend extends AutoCloseable {

    /** Short name used on the command line, e.g. {@code h2}, {@code postgres}, {@code redis}. */
    String id();

    /** Starts the embedded server, or connects to {@code externalUri} when it is not null. */
    List<LockSubject> start(String externalUri);

    /**
     * What {@link #start} will return, known before any server starts, so that a run can be planned
     * and its length told up front.
     *
     * @param external whether {@link #start} will be given an external URI
     */
    PlannedSubjects plannedSubjects(boolean external);

    /**
     * How many subjects a backend offers.
     *
     * @param total all subjects: Baton's, peers and raw baselines
     * @param baton Baton's own subjects, reachable by URI from another process ({@link
     *     BatonSubject#uri()}), so the ones whose recovery after a killed holder can be measured
     * @param semaphores the subjects that {@linkplain LockSubject#hasSemaphores() have semaphores},
     *     so run the semaphore scenario; Baton's count as its backend has them when the bench is built
     *     (a backend that gains semaphores must raise its count: {@code PlannedSubjectsTest} checks)
     * @param contendedOnly the subjects that run the contended lock scenarios only (Baton with {@code
     *     fair=false}: {@link LockSubject#runs})
     */
    record PlannedSubjects(int total, int baton, int semaphores, int contendedOnly) {
        public PlannedSubjects {
            if (total < 0
                    || baton < 0
                    || semaphores < 0
                    || contendedOnly < 0
                    || baton > total
                    || semaphores > total
                    || contendedOnly > total) {
                throw new IllegalArgumentException("0 <= baton, semaphores, contendedOnly <= total required: " + total
                        + ", " + baton + ", " + semaphores + ", " + contendedOnly);
            }
        }

        /** Subjects that all run every lock scenario. */
        public PlannedSubjects(int total, int baton, int semaphores) {
            this(total, baton, semaphores, 0);
        }

        /** Subjects without semaphores. */
        public PlannedSubjects(int total, int baton) {
            this(total, baton, 0);
        }

        /**
         * The subjects that run {@code scenario}: those with semaphores for S8, all for a contended
         * lock scenario, all but the contended-only ones for an uncontended one.
         */
        public int running(Scenario scenario) {
            if (scenario.semaphore()) {
                return semaphores;
            }
            return scenario.contended() ? total : total - contendedOnly;
        }
    }

    /**
     * The lease time of the holder that the recovery probe kills ({@link RecoveryProbe}): {@link
     * RecoveryProbe#HOLDER_LEASE} unless the backend's shortest lease is longer.
     */
    default java.time.Duration recoveryHolderLease() {
        return RecoveryProbe.HOLDER_LEASE;
    }

    /** Facts for the summary table. */
    default String consistencyModel() {
        return "";
    }

    /** How waiters learn that the lock is free. */
    default String waiterNotification() {
        return "";
    }

    /** Stops what {@link #start} started. */
    @Override
    void close();
}
