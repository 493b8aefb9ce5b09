package dev.baton.test;

import dev.baton.Holder;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.spi.LockRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.LongFunction;
import java.util.function.Predicate;

/**
 * The grants of one name in one space (its lock, whose {@link LockKind#MUTEX}, {@link LockKind#READ}
 * and {@link LockKind#WRITE} holds exclude each other as their modes say; or its semaphore's permits)
 * and the line of requests waiting for them. Who may hold and who comes next is decided here and
 * nowhere else.
 *
 * <p>The one rule of the line: a request is granted only when it fits beside the current holders and
 * nobody waits before it. A release does not free the lock for whoever asks next: it hands the lock
 * to the head of the line ({@link #handOn}), so another client's immediate re-acquire finds it taken
 * (fairness), and only the waiter whose turn came is woken (no herd). The walk stops at the first
 * waiter that does not fit, so a reader never overtakes a waiting writer.
 *
 * <p>Invariant, kept by {@link MemNamespace} calling {@link #expire} and {@link #handOn} around every
 * operation: the first waiter without a hand-over does not fit beside the holders. So a waiter either
 * has the lock handed to it or must wait; it never has to be granted on its own attempt.
 *
 * <p>Not thread-safe: {@link MemNamespace} calls it with its table lock held. Times are on the
 * namespace's clock (leases) and on {@link System#nanoTime()} (a waiter's last call).
 */
final class MemHolds {
    /** One grant. */
    static final class Hold {
        final LockRequest request;
        final long token;
        final long grantedAt;
        long expiresAt;
        /** The waiter this grant was handed to, until it takes it; then null. */
        Waiter handedTo;

        Hold(LockRequest request, long token, long grantedAt) {
            this.request = request;
            this.token = token;
            this.grantedAt = grantedAt;
            this.expiresAt = grantedAt + request.leaseTime().toNanos();
        }
    }

    /** One request waiting in line. */
    static final class Waiter {
        final LockRequest request;
        final Runnable wake;
        final long staleAfterNanos;
        /** {@link System#nanoTime()} of the waiter's last call, to drop a waiter that stopped calling. */
        long lastCall;
        /** A grant handed to this waiter and not taken yet. */
        Hold handed;

        boolean inLine;

        Waiter(LockRequest request, Runnable wake, long staleAfterNanos) {
            this.request = request;
            this.wake = wake;
            this.staleAfterNanos = staleAfterNanos;
        }
    }

    /** What happened to a grant, for the namespace's journal. */
    interface Journal {
        long nextToken();

        void record(MemEvent.Type type, Hold hold);
    }

    final String name;
    final boolean permitSpace;
    private final Journal journal;
    private final Map<String, Hold> holds = new LinkedHashMap<>();
    private final List<Waiter> line = new ArrayList<>();
    /** The semaphore's permit count, stored on first use; 0 in the lock space. */
    private int permits;

    MemHolds(String name, boolean permitSpace, Journal journal) {
        this.name = name;
        this.permitSpace = permitSpace;
        this.journal = journal;
    }

    /** A semaphore's count belongs to its name while it is in use: another count is refused. */
    void checkPermits(LockRequest request, String backend) {
        if (!permitSpace) {
            return;
        }
        if (permits == 0) {
            permits = request.permits();
        } else if (permits != request.permits()) {
            throw new LockConfigurationException("Baton semaphore '" + name + "' on " + backend + " has " + permits
                    + " permits, not " + request.permits() + ": every client must give one name the same count; use "
                    + permits + " or another name");
        }
    }

    /** Whether {@code request} fits beside the current holders. */
    private boolean fits(LockRequest request) {
        if (holds.isEmpty()) {
            return true;
        }
        if (permitSpace) {
            return holds.size() < permits;
        }
        return request.mode() == LockMode.SHARED
                && holds.values().stream().allMatch(hold -> hold.request.mode() == LockMode.SHARED);
    }

    private Hold add(LockRequest request, long now) {
        Hold hold = new Hold(request, journal.nextToken(), now);
        holds.put(request.ownerId(), hold);
        journal.record(MemEvent.Type.GRANTED, hold);
        return hold;
    }

    private void drop(Hold hold, MemEvent.Type why) {
        holds.remove(hold.request.ownerId());
        if (hold.handedTo != null) {
            hold.handedTo.handed = null;
            hold.handedTo = null;
        }
        journal.record(why, hold);
    }

    /** A grant now, if the request fits and nobody waits: a waiting request comes first. */
    Optional<Hold> tryGrant(LockRequest request, long now) {
        return waiting() == 0 && fits(request) ? Optional.of(add(request, now)) : Optional.empty();
    }

    /** Puts the waiter at the back of the line. */
    void join(Waiter waiter) {
        waiter.inLine = true;
        line.add(waiter);
    }

    /**
     * The grant handed to {@code waiter}, if its turn came; it then leaves the line. By the invariant,
     * a waiter without a hand-over must wait.
     */
    Optional<Hold> take(Waiter waiter) {
        Hold hold = waiter.handed;
        if (hold == null) {
            return Optional.empty();
        }
        hold.handedTo = null;
        waiter.handed = null;
        waiter.inLine = false;
        line.remove(waiter);
        return Optional.of(hold);
    }

    /** Takes the waiter out of the line; a grant handed to it and never taken is released. */
    void leave(Waiter waiter) {
        if (line.remove(waiter)) {
            waiter.inLine = false;
            if (waiter.handed != null) {
                drop(waiter.handed, MemEvent.Type.RELEASED);
            }
        }
    }

    Optional<Hold> held(String ownerId) {
        Hold hold = holds.get(ownerId);
        // A grant handed to a waiter is not its owner's until the waiter takes it.
        return hold == null || hold.handedTo != null ? Optional.empty() : Optional.of(hold);
    }

    /** Ends the owner's grant, taken or only handed; true if there was one. */
    boolean release(String ownerId, MemEvent.Type why) {
        Hold hold = holds.get(ownerId);
        if (hold == null) {
            return false;
        }
        drop(hold, why);
        return true;
    }

    /** Removes the owner's waiter, if it is in line (an attempt whose outcome its caller never learnt). */
    void abandon(String ownerId) {
        line.stream()
                .filter(waiter -> waiter.request.ownerId().equals(ownerId))
                .findFirst()
                .ifPresent(this::leave);
    }

    /** Breaks the grants of the owners {@code which} accepts; returns what was broken. */
    List<Hold> breakHolds(Predicate<Hold> which) {
        List<Hold> broken =
                new ArrayList<>(holds.values().stream().filter(which).toList());
        broken.forEach(hold -> drop(hold, MemEvent.Type.BROKEN));
        return broken;
    }

    /**
     * Ends the grants whose lease ran out at {@code now}, and drops the waiters that stopped calling
     * by {@code nowNanos} (their process died or stands still) so that they cannot hold the line; a
     * dropped waiter that calls again joins at the back.
     */
    void expire(long now, long nowNanos) {
        for (Hold hold : List.copyOf(holds.values())) {
            if (hold.expiresAt - now <= 0) {
                drop(hold, MemEvent.Type.EXPIRED);
            }
        }
        for (Waiter waiter : List.copyOf(line)) {
            if (nowNanos - waiter.lastCall >= waiter.staleAfterNanos) {
                leave(waiter);
            }
        }
    }

    /**
     * Hands the lock on: from the head of the line, each waiter that fits beside the holders is granted
     * now and woken to take it; the first that does not fit ends the walk, so nobody passes it.
     */
    void handOn(long now, List<Runnable> wakes) {
        for (Waiter waiter : line) {
            if (waiter.handed != null) {
                continue;
            }
            if (!fits(waiter.request)) {
                return;
            }
            Hold hold = add(waiter.request, now);
            hold.handedTo = waiter;
            waiter.handed = hold;
            wakes.add(waiter.wake);
        }
    }

    /** Waiters without a hand-over. */
    int waiting() {
        return (int) line.stream().filter(waiter -> waiter.handed == null).count();
    }

    boolean isEmpty() {
        return holds.isEmpty() && line.isEmpty();
    }

    /** What {@link dev.baton.LockAdmin} shows: the holders (handed grants too), and the waiters. */
    Optional<LockInfo> info(LongFunction<Instant> instant) {
        if (holds.isEmpty()) {
            return Optional.empty();
        }
        List<Holder> holders = holds.values().stream()
                .map(hold -> Holder.of(
                        hold.request.ownerId(), hold.request.holder(), hold.token, instant.apply(hold.expiresAt)))
                .toList();
        LockKind first = holds.values().iterator().next().request.kind();
        LockKind kind = permitSpace ? LockKind.PERMIT : first.mode() == LockMode.SHARED ? LockKind.READ : first;
        LockInfo info = LockInfo.of(name, kind, holders).withWaiters(OptionalInt.of(waiting()));
        return Optional.of(permitSpace ? info.withPermits(permits) : info);
    }
}
