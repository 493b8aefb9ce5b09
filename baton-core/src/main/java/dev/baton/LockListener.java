package dev.baton;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * Hears what a client's locks do, for metrics and logs: acquires and their wait, waiting threads,
 * releases with the time held, renewals and losses. Register it on the client's options with
 * {@link LockOptions.Builder#listener(LockListener)}; several may be registered, and each is called
 * in the order given. Every method has an empty default, so an implementation overrides only what
 * it needs. Each callback gets the lock's name and the backend's name ({@link
 * LockClient#backendName()}).
 *
 * <p>What is reported, per client:
 *
 * <ul>
 *   <li>{@link #acquireStarted}: once per acquire call that is not a reentrant one, on the calling
 *       thread, before it does anything else; exactly one {@link #acquireEnded} follows it.
 *   <li>{@link #acquireEnded}: once per acquire call that was not a reentrant one ({@code acquire},
 *       {@code tryAcquire}, {@code lock}, {@code tryLock}, ...), with its outcome and how long the
 *       call took. {@link AcquireOutcome#ACQUIRED} starts a grant; every grant then ends with
 *       exactly one {@link #leaseReleased}. A call refused before it starts (the client is closed,
 *       the thread was already interrupted, the thread holds the other side of a read/write lock)
 *       is not reported.
 *   <li>A <em>reentrant</em> acquire (the thread already holds the lock, in the same mode) is not
 *       reported at all: it neither waits nor reaches the backend, it only adds a hold to the grant
 *       the thread has. Likewise closing a hold that is not the last one reports nothing; only the
 *       release of the last hold reports {@link #leaseReleased}.
 *   <li>{@link #waitStarted} / {@link #waitEnded}: in pairs, when an acquire call has to wait (the
 *       lock is held by another thread of this client, or the backend refused the first attempt)
 *       and when that call ends. On backends that queue waiters themselves (ZooKeeper, etcd, the
 *       JDBC {@code pessimistic} and {@code advisory} strategies) the core cannot tell an immediate
 *       grant from a wait, so a call that may wait counts as waiting from its start.
 *   <li>{@link #renewed} and {@link #renewalFailed}: per grant, for every renewal the backend
 *       answered and for every renewal call that failed (the core retries while the lease is still
 *       valid). A renewal the backend refused because it no longer has the grant is a loss, reported
 *       by {@link #leaseLost}, not a renewal failure.
 *   <li>{@link #leaseLost}: at most once per grant, before its {@link #leaseReleased}, whenever the
 *       holder's {@link Lease#onLost} listeners are told.
 * </ul>
 *
 * <p>Threads and guarantees: a callback runs on the thread where the event happens (the acquiring
 * thread, the thread that closes the last hold or the client, a renewal thread of the client, or
 * its timer thread), synchronously, with no lock of the core held; the acquiring thread may hold
 * its client's local turn for the lock. Callbacks must therefore return quickly and must not block:
 * renewals and loss reports of the client's other leases wait for a callback that runs on a renewal
 * or timer thread. A callback that throws never breaks locking: the exception is logged through
 * SLF4J (a warning the first time per listener and kind of event, debug after that) and the other
 * listeners are still called. Implementations must be thread-safe.
 *
 * <p>Pairing events: each callback has two forms. The short one gets the lock's and the backend's
 * names; the long one gets the {@link Acquisition} as well, the same instance for every event of
 * one acquire call and of the grant it took, so that a listener can pair an acquire's start with its
 * end and a grant with its renewals, loss and release (tracing does: one span per acquire, one per
 * hold). The client calls the long form; its default calls the short form, so a listener overrides
 * whichever it needs. {@link #acquireStarted} has the long form only.
 */
public interface LockListener {

    /**
     * One acquire call that is not reentrant and, if it was granted, the grant it took until that
     * grant's release: the same instance reaches every callback about them, so a listener may key
     * its own state by it (identity; it does not override {@code equals}). Made by the client only.
     */
    interface Acquisition {
        /**
         * The lock's name.
         *
         * @return the name the lock was asked for by
         */
        String lock();

        /**
         * The backend's name.
         *
         * @return as {@link LockClient#backendName()} reports it
         */
        String backend();

        /**
         * What was asked for: a plain lock, a side of a read/write lock or a semaphore's permit.
         *
         * @return the kind of lock
         */
        LockKind kind();

        /**
         * The grant's fencing token, once granted.
         *
         * @return the token from {@link #acquireEnded(Acquisition, AcquireOutcome, Duration)} with
         *     {@link AcquireOutcome#ACQUIRED} on; empty before and for a call that got no grant
         */
        OptionalLong fencingToken();
    }

    /** How an acquire call ended. */
    enum AcquireOutcome {
        /** The lock was granted: a new grant, ended later by exactly one {@link #leaseReleased}. */
        ACQUIRED,
        /**
         * Not acquired within the caller's timeout; for {@code tryAcquire()} and {@code tryLock()},
         * whose timeout is zero, this means the lock was held by another owner.
         */
        TIMED_OUT,
        /** The waiting thread was interrupted; nothing was acquired. */
        INTERRUPTED,
        /** The call threw (backend unreachable, refused, misconfigured); nothing was acquired. */
        FAILED,
        /**
         * The caller cancelled an asynchronous acquisition (its future was cancelled or completed by
         * the caller); nothing was acquired, or what was granted meanwhile was released.
         */
        CANCELLED
    }

    /**
     * An acquire call that is not reentrant started: called on the calling thread before the call
     * does anything else, so a listener can read the caller's context there (the current trace, for
     * one). The same {@code acquisition} then reaches every later callback of this call and grant.
     *
     * @param acquisition the call
     */
    default void acquireStarted(Acquisition acquisition) {}

    /**
     * An acquire call ended; the long form of {@link #acquireEnded(String, String, AcquireOutcome,
     * Duration)}, which its default calls. With {@link AcquireOutcome#ACQUIRED}, {@link
     * Acquisition#fencingToken()} is the grant's token.
     *
     * @param acquisition the call, as {@link #acquireStarted} got it
     * @param outcome how the call ended
     * @param waited from the call's start to its end, including the backend's round trips
     */
    default void acquireEnded(Acquisition acquisition, AcquireOutcome outcome, Duration waited) {
        acquireEnded(acquisition.lock(), acquisition.backend(), outcome, waited);
    }

    /**
     * An acquire call ended.
     *
     * @param lock the lock's name
     * @param backend the backend's {@linkplain LockClient#backendName() name}
     * @param outcome how the call ended
     * @param waited from the call's start to its end, including the backend's round trips
     */
    default void acquireEnded(String lock, String backend, AcquireOutcome outcome, Duration waited) {}

    /**
     * The long form of {@link #waitStarted(String, String)}, which its default calls.
     *
     * @param acquisition the call that waits
     */
    default void waitStarted(Acquisition acquisition) {
        waitStarted(acquisition.lock(), acquisition.backend());
    }

    /**
     * An acquire call started to wait; {@link #waitEnded} follows when the call ends.
     *
     * @param lock the lock's name
     * @param backend the backend's {@linkplain LockClient#backendName() name}
     */
    default void waitStarted(String lock, String backend) {}

    /**
     * The long form of {@link #waitEnded(String, String)}, which its default calls.
     *
     * @param acquisition the call that waited
     */
    default void waitEnded(Acquisition acquisition) {
        waitEnded(acquisition.lock(), acquisition.backend());
    }

    /**
     * An acquire call that had started to wait ended (whatever its outcome).
     *
     * @param lock the lock's name
     * @param backend the backend's {@linkplain LockClient#backendName() name}
     */
    default void waitEnded(String lock, String backend) {}

    /**
     * The long form of {@link #leaseReleased(String, String, Duration)}, which its default calls.
     *
     * @param acquisition the call that took the grant
     * @param held from the grant to the end of its release on the backend
     */
    default void leaseReleased(Acquisition acquisition, Duration held) {
        leaseReleased(acquisition.lock(), acquisition.backend(), held);
    }

    /**
     * A grant ended: its last hold was released (or the client was closed), also when it had been
     * lost before.
     *
     * @param lock the lock's name
     * @param backend the backend's {@linkplain LockClient#backendName() name}
     * @param held from the grant to the end of its release on the backend
     */
    default void leaseReleased(String lock, String backend, Duration held) {}

    /**
     * The long form of {@link #renewed(String, String)}, which its default calls.
     *
     * @param acquisition the call that took the grant
     */
    default void renewed(Acquisition acquisition) {
        renewed(acquisition.lock(), acquisition.backend());
    }

    /**
     * The backend extended a held grant.
     *
     * @param lock the lock's name
     * @param backend the backend's {@linkplain LockClient#backendName() name}
     */
    default void renewed(String lock, String backend) {}

    /**
     * The long form of {@link #renewalFailed(String, String, Throwable)}, which its default calls.
     *
     * @param acquisition the call that took the grant
     * @param cause why the call failed
     */
    default void renewalFailed(Acquisition acquisition, Throwable cause) {
        renewalFailed(acquisition.lock(), acquisition.backend(), cause);
    }

    /**
     * A renewal call failed for a held grant; it is retried while the lease is still valid.
     *
     * @param lock the lock's name
     * @param backend the backend's {@linkplain LockClient#backendName() name}
     * @param cause why the call failed, usually a {@link LockUnavailableException}
     */
    default void renewalFailed(String lock, String backend, Throwable cause) {}

    /**
     * The long form of {@link #leaseLost(String, String, LockLostException)}, which its default
     * calls.
     *
     * @param acquisition the call that took the grant
     * @param cause what the holder's {@link Lease#onLost} listeners get
     */
    default void leaseLost(Acquisition acquisition, LockLostException cause) {
        leaseLost(acquisition.lock(), acquisition.backend(), cause);
    }

    /**
     * A held grant was lost.
     *
     * @param lock the lock's name
     * @param backend the backend's {@linkplain LockClient#backendName() name}
     * @param cause what the holder's {@link Lease#onLost} listeners get
     */
    default void leaseLost(String lock, String backend, LockLostException cause) {}
}
