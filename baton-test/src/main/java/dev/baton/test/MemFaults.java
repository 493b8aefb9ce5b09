package dev.baton.test;

import dev.baton.Lease;
import dev.baton.LockUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The fault controller of one {@code mem://} namespace ({@link MemLocks#faults}): what a test does to
 * the lock server under its application to see the paths that matter most run, {@code onLost}, {@code
 * checkValid()} and a fenced write by a holder that was deposed. Every client of the namespace feels
 * its faults alike, those of other JVMs served by a {@link MemLockServer} too.
 *
 * <p>What each fault does, as a real server would:
 *
 * <ul>
 *   <li>{@link #lose}: the namespace drops a grant now (as an operator's forced release, or a server
 *       that lost its state, would). The lock is free for the next client at once, with a higher
 *       fencing token; the holder learns it at its next renewal, within a third of its lease time,
 *       through {@link Lease#onLost}, {@link Lease#isValid()} and {@link Lease#checkValid()}.
 *   <li>{@link #refuseRenewals}: renewals fail ({@link LockUnavailableException} to the client's core,
 *       which retries), so the lease is reported lost at its validity deadline, when its lease time has
 *       passed since the last renewal that was answered; the grant runs out on the server then too.
 *   <li>{@link #stallRenewals}: renewals hang, each until the fault ends or the client's operation
 *       timeout passes (then it fails as a call without an answer does); the lease is reported lost at
 *       its validity deadline however long the call hangs. A client in this JVM renews grant by grant;
 *       a client in another JVM renews up to 100 grants in one call, and a stalled renewal holds back
 *       its whole call, as on a server that renews in batches.
 *   <li>{@link #unreachable}: every call fails at once with {@link LockUnavailableException}, as with
 *       a server whose port refuses connections: acquisitions fail, waiters stop waiting with that
 *       exception, renewals fail (leases are lost at their validity deadlines unless the fault ends
 *       first), releases fail (the grant then runs out after its lease on the server).
 *   <li>{@link #advanceClock}: the namespace's clock jumps forward, and every grant whose lease runs
 *       out within the jump ends at once (other clients may take it, with higher tokens). The clients'
 *       own clocks do not move: a holder believes its lease valid until its next renewal says
 *       otherwise, as a process that stood still right after checking its lease would (a GC pause
 *       between {@code checkValid()} and a write). This is what fencing tokens are for.
 * </ul>
 *
 * <p>And to observe: {@link #events()} lists every grant made, released, run out and broken, with its
 * fencing token ({@link #grants()}, {@link #tokens(String)}).
 *
 * <p>Thread-safe. Faults stay in force until closed ({@link MemFault#close()}), healed ({@link
 * #heal()}), or, when made with a duration, until it has passed.
 */
public final class MemFaults {
    private final MemNamespace namespace;
    private final List<MemFault> faults = new CopyOnWriteArrayList<>();
    private final ReentrantLock stalls = new ReentrantLock();
    private final Condition faultEnded = stalls.newCondition();
    private final AtomicInteger stalled = new AtomicInteger();

    MemFaults(MemNamespace namespace) {
        this.namespace = namespace;
    }

    /**
     * The namespace these faults act on.
     *
     * @return its name
     */
    public String namespace() {
        return namespace.name;
    }

    /**
     * The URI of the namespace, for the application's own client.
     *
     * @return {@code mem://<namespace>}
     */
    public String uri() {
        return MemLocks.uri(namespace.name);
    }

    /**
     * Drops the grant of one lease now: the lock is free at once for the next client, whose fencing
     * token is higher, and the lease's holder is told at its next renewal (within a third of its lease
     * time; a lease without auto-renewal when its lease time runs out), through {@link Lease#onLost}.
     *
     * @param lease a lease of a lock, of a read/write lock's side or of a semaphore permit, taken from
     *     this namespace
     * @return true if the namespace held that grant and dropped it; false if it was gone already
     * @throws NullPointerException if {@code lease} is null
     */
    public boolean lose(Lease lease) {
        Objects.requireNonNull(lease, "lease");
        long token = lease.fencingToken();
        return !namespace.breakHolds(lease.name(), hold -> hold.token == token).isEmpty();
    }

    /**
     * Drops every grant of a name (its lock, both sides of its read/write lock, its semaphore's
     * permits), as {@link #lose(Lease)} does for one.
     *
     * @param name the lock or semaphore name
     * @return how many grants were dropped
     * @throws NullPointerException if {@code name} is null
     */
    public int lose(String name) {
        Objects.requireNonNull(name, "name");
        return namespace.breakHolds(name, hold -> true).stream()
                .mapToInt(info -> info.holders().size())
                .sum();
    }

    /**
     * Makes renewals of one name's grants hang: each until the fault ends or its client's operation
     * timeout passes.
     *
     * @param name the lock or semaphore name
     * @return the fault, in force until closed
     */
    public MemFault stallRenewals(String name) {
        return add(MemFault.Kind.STALL_RENEWALS, Objects.requireNonNull(name, "name"), null);
    }

    /**
     * Makes every renewal hang, as {@link #stallRenewals(String)} does for one name.
     *
     * @return the fault, in force until closed
     */
    public MemFault stallRenewals() {
        return add(MemFault.Kind.STALL_RENEWALS, null, null);
    }

    /**
     * Makes renewals of one name's grants fail with {@link LockUnavailableException}, as a server that
     * answers with an error would.
     *
     * @param name the lock or semaphore name
     * @return the fault, in force until closed
     */
    public MemFault refuseRenewals(String name) {
        return add(MemFault.Kind.REFUSE_RENEWALS, Objects.requireNonNull(name, "name"), null);
    }

    /**
     * Makes every renewal fail, as {@link #refuseRenewals(String)} does for one name.
     *
     * @return the fault, in force until closed
     */
    public MemFault refuseRenewals() {
        return add(MemFault.Kind.REFUSE_RENEWALS, null, null);
    }

    /**
     * Cuts the namespace off: every call of every client fails at once with {@link
     * LockUnavailableException} until the fault ends.
     *
     * @return the fault, in force until closed
     */
    public MemFault unreachable() {
        return add(MemFault.Kind.UNREACHABLE, null, null);
    }

    /**
     * Cuts the namespace off for a while, as {@link #unreachable()} does.
     *
     * @param duration how long, from now; positive
     * @return the fault, in force until {@code duration} has passed or it is closed
     * @throws IllegalArgumentException if {@code duration} is not positive
     */
    public MemFault unreachable(Duration duration) {
        requirePositive(duration, "duration");
        return add(MemFault.Kind.UNREACHABLE, null, duration);
    }

    /**
     * Moves the namespace's clock forward: every grant whose lease runs out within {@code by} ends now
     * (its waiters are woken), and leases taken or renewed afterwards count from the new time. The
     * clients' clocks do not move; see the class comment.
     *
     * @param by how far; positive
     * @throws IllegalArgumentException if {@code by} is not positive
     */
    public void advanceClock(Duration by) {
        requirePositive(by, "by");
        namespace.advance(by);
    }

    /**
     * Now on the namespace's clock: the wall-clock time plus every {@link #advanceClock} so far.
     *
     * @return the namespace's time
     */
    public Instant now() {
        return namespace.instant(namespace.now());
    }

    /**
     * What happened to the namespace's grants, oldest first: the latest {@value
     * MemNamespace#EVENTS_KEPT} events.
     *
     * @return a snapshot; unmodifiable
     */
    public List<MemEvent> events() {
        return namespace.events();
    }

    /**
     * The grants made, oldest first ({@link MemEvent.Type#GRANTED} events).
     *
     * @return a snapshot; unmodifiable
     */
    public List<MemEvent> grants() {
        return events().stream()
                .filter(event -> event.type() == MemEvent.Type.GRANTED)
                .toList();
    }

    /**
     * The fencing tokens of the grants of one name, in the order they were made.
     *
     * @param name the lock or semaphore name
     * @return strictly increasing tokens; unmodifiable
     */
    public List<Long> tokens(String name) {
        return grants().stream()
                .filter(event -> event.name().equals(name))
                .map(MemEvent::fencingToken)
                .toList();
    }

    /** Ends every fault in force: stalled renewals go on, refused and cut-off calls are answered. */
    public void heal() {
        faults.forEach(MemFault::close);
    }

    @Override
    public String toString() {
        return "MemFaults[" + namespace.name + ", " + faults + "]";
    }

    private MemFault add(MemFault.Kind kind, String name, Duration duration) {
        long until = duration == null ? 0 : System.nanoTime() + duration.toNanos();
        MemFault fault = new MemFault(this, kind, name, until, duration != null);
        faults.add(fault);
        return fault;
    }

    void ended(MemFault fault) {
        faults.remove(fault);
        stalls.lock();
        try {
            faultEnded.signalAll();
        } finally {
            stalls.unlock();
        }
    }

    private boolean covered(MemFault.Kind kind, String lock) {
        return faults.stream().anyMatch(fault -> fault.covers(kind, lock));
    }

    /** Fails a call while the namespace is cut off. */
    void checkReachable(String lock, String backend) {
        if (covered(MemFault.Kind.UNREACHABLE, lock)) {
            throw new LockUnavailableException(what(lock, backend)
                    + ": the backend is unreachable (MemFaults.unreachable); calls succeed again when the fault ends");
        }
    }

    /**
     * Applies the renewal faults to a renewal of {@code lock}: refuses it, or holds it back while a
     * stall is in force, at most {@code timeout}, the caller's operation timeout.
     */
    void beforeRenewal(String lock, String backend, Duration timeout) {
        if (covered(MemFault.Kind.REFUSE_RENEWALS, lock)) {
            throw new LockUnavailableException(
                    what(lock, backend) + ": the renewal was refused (MemFaults.refuseRenewals)");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        stalls.lock();
        stalled.incrementAndGet();
        try {
            while (covered(MemFault.Kind.STALL_RENEWALS, lock)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new LockUnavailableException(what(lock, backend) + ": the renewal got no answer within "
                            + timeout + " (MemFaults.stallRenewals)");
                }
                // A fault made with a duration ends without a signal: wake up when the first one does.
                for (MemFault fault : faults) {
                    if (fault.covers(MemFault.Kind.STALL_RENEWALS, lock)) {
                        left = Math.min(left, Math.max(1, fault.nanosLeft()));
                    }
                }
                faultEnded.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(
                    what(lock, backend) + ": interrupted while the renewal was stalled (MemFaults.stallRenewals)");
        } finally {
            stalled.decrementAndGet();
            stalls.unlock();
        }
    }

    /** Renewals in {@link #beforeRenewal} now, held back or about to be: for tests that must see one held. */
    int renewalsInStall() {
        return stalled.get();
    }

    private static String what(String lock, String backend) {
        return lock == null ? backend : "Baton lock '" + lock + "' on " + backend;
    }

    private static void requirePositive(Duration duration, String what) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(what + " must be a positive duration, was " + duration);
        }
    }
}
