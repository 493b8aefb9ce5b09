package dev.baton;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * A candidate in the leader election called {@link #name()}, built on the lock of the same name: the
 * leader is the candidate that holds the lock, and its <em>epoch</em> is the fencing token of the
 * lease it holds, so epochs strictly increase from one leader to the next. Made by {@link
 * LockClient#leadership(String)}; it does nothing until {@link #start()}.
 *
 * <p>Once started, the candidate asks for the lock asynchronously, holding no thread while it waits
 * ({@link DistributedLock#acquireAsync()}); while it holds it, the
 * client renews the lease as it renews any lease. When the lease is lost (a renewal refused because
 * the backend no longer has it, renewal failing until the lease's validity ran out, the holder
 * released by force, a pause that outlasted the lease) the candidate stops leading and joins the
 * election again, so that it may lead again later with a new, higher epoch. {@link #close()} resigns:
 * it releases the lease, so that another candidate is elected at once, and ends the candidacy.
 *
 * <h2>Guarantees</h2>
 *
 * <ul>
 *   <li><b>{@link #isLeader()} is fenced by the lease's validity.</b> It is answered locally, with no
 *       I/O, from the lease's {@link Lease#isValid()}: it turns {@code false} no later than the
 *       lease's validity deadline, measured on this JVM's monotonic clock from the moment the last
 *       successful acquire or renew request was <em>sent</em>, so never later than the backend's own
 *       expiry of the lease, whatever the clocks of the machines say. A leader that was paused (a
 *       long GC, SIGSTOP, a frozen VM) and wakes up after its lease ran out sees {@code false} on its
 *       first call, before any renewal, loss report or listener has run. Check it (or {@link
 *       #epoch()}) right before every action that only the leader may take.
 *   <li><b>Another leader is elected only after this one's validity ran out</b>, as the backend
 *       allows: a new holder of the lock gets it once the old lease expired on the backend (which is
 *       after the old holder's local validity deadline), or was released. The one exception is an
 *       operator's forced release, which the holder learns of at its next renewal (within a third of
 *       the lease time). What no election can prevent is an action already under way when the lease
 *       runs out: pass {@link #epoch()} to the resource you protect, as a fencing token, so that it
 *       rejects the actions of a deposed leader.
 *   <li><b>Listeners</b> ({@link #addListener}) run on one thread of this candidacy, never on the
 *       thread of a caller or of the client's renewals, one event at a time, in the order of events:
 *       every {@link LeadershipListener#elected elected(epoch)} is followed by exactly one {@link
 *       LeadershipListener#revoked revoked} for the same epoch before any later {@code elected}, and
 *       {@code revoked} is never called for an epoch that was not announced. A listener is told after
 *       the fact: {@code revoked} runs once the loss is known here (at once for a resignation; for a
 *       loss, by the lease's validity deadline, or on waking from a pause that outlasted it), which
 *       may be after another candidate was elected. Listeners must therefore not be the only guard of
 *       leader-only work; {@link #isLeader()} and the epoch are.
 *   <li><b>Failures.</b> A backend that cannot be reached while the candidate waits is retried with
 *       backoff (up to the lease time between attempts) until the candidacy is closed; it never ends
 *       the candidacy. A listener that throws is logged and the other listeners are still called.
 * </ul>
 *
 * <p>Thread-safe. The lock it contends for is {@code client.lock(name)}: a client that takes that
 * lock directly competes with the candidates, and {@code baton locks} lists the leader as its holder.
 */
public interface Leadership extends AutoCloseable {

    /**
     * The election's name, which is also the name of the lock its leader holds.
     *
     * @return the name given to {@link LockClient#leadership(String)}
     */
    String name();

    /**
     * Joins the election: the candidate asks for the lock asynchronously. Returns at once.
     * Idempotent while the candidacy is open.
     *
     * @return this candidacy, for chaining
     * @throws IllegalStateException if the candidacy has been closed
     * @throws LockUnavailableException if its client has been closed
     */
    Leadership start();

    /**
     * Whether this candidate leads now. Answered locally, without I/O: {@code true} while it holds a
     * lease that is still valid by the local monotonic clock (see the class comment), {@code false}
     * before it is elected, after its lease's validity ran out (even if no renewal or loss report has
     * run yet), and from the moment {@link #close()} is called.
     *
     * @return {@code true} while this candidate is the leader
     */
    boolean isLeader();

    /**
     * The current epoch, only while this candidate leads: the fencing token of its lease, which is
     * higher than that of every earlier leader of this election. Give it to the resource that
     * leader-only work writes to.
     *
     * @return the epoch while {@link #isLeader()}, otherwise empty
     */
    OptionalLong epoch();

    /**
     * Waits until this candidate leads, or the time runs out.
     *
     * @param timeout the longest time to wait
     * @return {@code true} if it leads on return, {@code false} if the time ran out or the candidacy
     *     was closed
     * @throws InterruptedException if the calling thread is interrupted while waiting
     * @throws IllegalArgumentException if {@code timeout} is null or negative
     */
    boolean awaitLeadership(Duration timeout) throws InterruptedException;

    /**
     * Adds a listener; each is called in the order added. A listener added while this candidate leads
     * is told {@link LeadershipListener#elected elected(epoch)} at once (on the listener thread), so
     * that it never misses the current term.
     *
     * @param listener told of each election and revocation; must not be null
     * @return this candidacy, for chaining
     */
    Leadership addListener(LeadershipListener listener);

    /**
     * Resigns and ends the candidacy: {@link #isLeader()} turns {@code false} at once; a leader's
     * {@link LeadershipListener#revoked revoked} listeners run (waiting for them at most one lease time,
     * unless this is called from a listener), then its lease is released so that another candidate is
     * elected at once. Returns once the lease is released and the candidacy's threads have ended
     * (except when called from a listener: the listener thread then ends after it). Idempotent; never
     * throws. Closing the client closes its candidacies the same way.
     */
    @Override
    void close();
}
