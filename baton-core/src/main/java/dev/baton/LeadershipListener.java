package dev.baton;

/**
 * Hears when a {@link Leadership} candidate is elected and when it stops leading. Both methods have
 * an empty default, so an implementation overrides what it needs.
 *
 * <p>Threads and order: every call of one candidacy runs on its listener thread, one at a time, in
 * the order of events; {@code elected(e)} is followed by exactly one {@code revoked(e, ...)} before
 * any later {@code elected}. A listener may block for its work (it delays only the later events of
 * its candidacy, never renewals or loss detection), but a listener that keeps running after {@code
 * revoked} was queued keeps acting as a leader that no longer is one: check {@link
 * Leadership#isLeader()} in long work. An exception a listener throws is logged and does not stop
 * the other listeners.
 */
public interface LeadershipListener {

    /** Why a candidate stopped leading. */
    enum Reason {
        /**
         * The lease was lost: the backend no longer had it at a renewal (it expired, or was released
         * by force), renewals failed until its validity ran out, or a pause outlasted it. The
         * candidate has joined the election again.
         */
        LOST,
        /** The candidacy or its client was closed: the lease was released on purpose. */
        RESIGNED
    }

    /**
     * This candidate became the leader.
     *
     * @param epoch the fencing token of its lease; higher than every earlier leader's
     */
    default void elected(long epoch) {}

    /**
     * This candidate stopped leading the term {@code epoch}. By the time this runs, {@link
     * Leadership#isLeader()} already answers {@code false} for that term.
     *
     * @param epoch the epoch of the term that ended, as given to {@link #elected}
     * @param reason why it ended
     * @param cause for {@link Reason#LOST}, the lease's loss (its message says why); {@code null} for
     *     {@link Reason#RESIGNED}
     */
    default void revoked(long epoch, Reason reason, LockLostException cause) {}
}
