package dev.baton.test;

import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One {@code mem://} namespace: the table of every name's grants and lines ({@link MemHolds}, one per
 * name and space), the namespace's clock, its fencing-token counter, its journal of events and its
 * faults. Every client of the namespace in this JVM, and every client a {@link MemLockServer} serves
 * it to, works on this one table.
 *
 * <p>One lock guards the whole table: operations are a few map lookups each, so a finer scheme would
 * buy nothing in a test and cost clarity. Nothing blocks while it is held; the wake-ups a hand-over
 * asks for run after it is released, since they call into the client's core.
 *
 * <p>Expiry is server-side and lazy: a name's grants are checked against the namespace's clock
 * whenever the name is touched (an attempt, a renewal, a listing). A waiter's fallback attempt, which
 * the core makes at least once per {@code pollMaxDelay}, touches it, so a lock whose holder died
 * passes to the next waiter within that much after its lease ran out; {@link #advance} checks every
 * name at once.
 */
final class MemNamespace implements MemHolds.Journal {
    /** Events kept for {@link MemFaults#events()}: the latest ones, so that a long run stays small. */
    static final int EVENTS_KEPT = 10_000;

    final String name;
    final MemFaults faults;
    private final ReentrantLock table = new ReentrantLock();
    private final Map<String, MemHolds> locks = new HashMap<>();
    private final Map<String, MemHolds> permits = new HashMap<>();
    private final ArrayDeque<MemEvent> events = new ArrayDeque<>();
    private long lastToken;

    // The clock: System.nanoTime() plus what tests advanced it by; its zero is this wall-clock instant.
    private final long originNanos = System.nanoTime();
    private final Instant origin = Instant.now();
    private final AtomicLong advancedBy = new AtomicLong();

    MemNamespace(String name) {
        this.name = name;
        this.faults = new MemFaults(this);
    }

    /** Now on the namespace's clock, in nanoseconds. */
    long now() {
        return System.nanoTime() + advancedBy.get();
    }

    Instant instant(long clockNanos) {
        return origin.plusNanos(clockNanos - originNanos);
    }

    /** What a call found or did, and the waiters to wake once the table is unlocked. */
    private <T> T inTable(Function<List<Runnable>, T> work) {
        List<Runnable> wakes = new ArrayList<>();
        T result;
        table.lock();
        try {
            result = work.apply(wakes);
        } finally {
            table.unlock();
        }
        wakes.forEach(Runnable::run);
        return result;
    }

    /** A name's space as it stands now: run-out grants ended, the lock handed on. */
    private MemHolds open(String lock, boolean permitSpace, List<Runnable> wakes) {
        Map<String, MemHolds> spaces = permitSpace ? permits : locks;
        MemHolds holds = spaces.computeIfAbsent(lock, n -> new MemHolds(n, permitSpace, this));
        holds.expire(now(), System.nanoTime());
        holds.handOn(now(), wakes);
        return holds;
    }

    /** After a change: the lock handed on, and a space with neither grants nor waiters forgotten. */
    private void settle(MemHolds holds, List<Runnable> wakes) {
        holds.handOn(now(), wakes);
        if (holds.isEmpty()) {
            (holds.permitSpace ? permits : locks).remove(holds.name, holds);
        }
    }

    private MemHolds open(LockRequest request, String backend, List<Runnable> wakes) {
        MemHolds holds = open(request.name(), request.kind() == LockKind.PERMIT, wakes);
        try {
            holds.checkPermits(request, backend);
        } catch (RuntimeException e) {
            settle(holds, wakes);
            throw e;
        }
        return holds;
    }

    /** The grant as the core sees it: its validity is what is left of its lease at {@code now}. */
    private Grant grant(MemHolds.Hold hold, long now) {
        Grant grant = Grant.of(hold.request, hold.token, instant(hold.expiresAt));
        long left = hold.expiresAt - now;
        return left < hold.request.leaseTime().toNanos() ? grant.withValidity(Duration.ofNanos(left)) : grant;
    }

    Optional<Grant> tryAcquire(LockRequest request, String backend) {
        return inTable(wakes -> {
            MemHolds holds = open(request, backend, wakes);
            long now = now();
            Optional<Grant> granted = holds.tryGrant(request, now).map(hold -> grant(hold, now));
            settle(holds, wakes);
            return granted;
        });
    }

    /**
     * Takes the lock for the waiter if it can be taken now, and otherwise puts it in line: one step
     * under the table lock, so that no release slips between the attempt and the joining.
     */
    Optional<Grant> enter(MemHolds.Waiter waiter, String backend) {
        return attempt(waiter, backend);
    }

    /** The waiter's grant if its turn came; a waiter dropped for not calling tries and joins again. */
    Optional<Grant> attempt(MemHolds.Waiter waiter, String backend) {
        return inTable(wakes -> {
            waiter.lastCall = System.nanoTime();
            MemHolds holds = open(waiter.request, backend, wakes);
            long now = now();
            Optional<MemHolds.Hold> hold;
            if (waiter.inLine) {
                hold = holds.take(waiter);
            } else {
                hold = holds.tryGrant(waiter.request, now);
                if (hold.isEmpty()) {
                    holds.join(waiter);
                }
            }
            settle(holds, wakes);
            return hold.map(taken -> grant(taken, now));
        });
    }

    void leave(MemHolds.Waiter waiter) {
        inTable(wakes -> {
            MemHolds holds = open(waiter.request.name(), waiter.request.kind() == LockKind.PERMIT, wakes);
            holds.leave(waiter);
            settle(holds, wakes);
            return null;
        });
    }

    /** Applies {@code work} to the space of {@code lock} that holds the owner's grant, if any. */
    private <T> Optional<T> withOwner(String lock, String ownerId, Function<MemHolds, T> work) {
        return inTable(wakes -> {
            Optional<T> result = Optional.empty();
            for (boolean permitSpace : new boolean[] {false, true}) {
                if (!(permitSpace ? permits : locks).containsKey(lock)) {
                    continue;
                }
                MemHolds holds = open(lock, permitSpace, wakes);
                if (result.isEmpty() && holds.held(ownerId).isPresent()) {
                    result = Optional.of(work.apply(holds));
                }
                settle(holds, wakes);
            }
            return result;
        });
    }

    Optional<Grant> renew(Grant grant, Duration leaseTime) {
        return withOwner(grant.name(), grant.ownerId(), holds -> {
            MemHolds.Hold hold = holds.held(grant.ownerId()).orElseThrow();
            hold.expiresAt = now() + leaseTime.toNanos();
            return grant.withExpiresAt(instant(hold.expiresAt));
        });
    }

    boolean release(Grant grant) {
        return withOwner(grant.name(), grant.ownerId(), holds -> holds.release(grant.ownerId(), MemEvent.Type.RELEASED))
                .orElse(false);
    }

    /** Removes whatever the request left: its grant (taken or handed to it) and its place in line. */
    void abandon(LockRequest request) {
        inTable(wakes -> {
            MemHolds holds = open(request.name(), request.kind() == LockKind.PERMIT, wakes);
            holds.abandon(request.ownerId());
            holds.release(request.ownerId(), MemEvent.Type.RELEASED);
            settle(holds, wakes);
            return null;
        });
    }

    Optional<LockInfo> inspect(String lock) {
        return inTable(wakes -> {
            if (!locks.containsKey(lock)) {
                return Optional.empty();
            }
            MemHolds holds = open(lock, false, wakes);
            Optional<LockInfo> info = holds.info(this::instant);
            settle(holds, wakes);
            return info;
        });
    }

    List<LockInfo> list(String prefix) {
        return inTable(wakes -> {
            List<LockInfo> found = new ArrayList<>();
            for (boolean permitSpace : new boolean[] {false, true}) {
                Map<String, MemHolds> spaces = permitSpace ? permits : locks;
                for (String lock : List.copyOf(spaces.keySet())) {
                    if (lock.startsWith(prefix)) {
                        MemHolds holds = open(lock, permitSpace, wakes);
                        holds.info(this::instant).ifPresent(found::add);
                        settle(holds, wakes);
                    }
                }
            }
            found.sort(Comparator.comparing(LockInfo::name).thenComparing(LockInfo::kind));
            return found;
        });
    }

    /** Breaks the grants of {@code lock} that {@code which} accepts, in both spaces; waiters are woken. */
    List<LockInfo> breakHolds(String lock, Predicate<MemHolds.Hold> which) {
        return inTable(wakes -> {
            List<LockInfo> broken = new ArrayList<>();
            for (boolean permitSpace : new boolean[] {false, true}) {
                if (!(permitSpace ? permits : locks).containsKey(lock)) {
                    continue;
                }
                MemHolds holds = open(lock, permitSpace, wakes);
                Optional<LockInfo> before = holds.info(this::instant);
                List<String> owners = holds.breakHolds(which).stream()
                        .map(hold -> hold.request.ownerId())
                        .toList();
                before.filter(info -> !owners.isEmpty())
                        .ifPresent(info -> broken.add(LockInfo.of(
                                        lock,
                                        info.kind(),
                                        info.holders().stream()
                                                .filter(holder -> owners.contains(holder.ownerId()))
                                                .toList())
                                .withPermits(info.permits())
                                .withWaiters(info.waiters())));
                settle(holds, wakes);
            }
            return broken;
        });
    }

    /** Moves the clock forward and ends, at once, every grant whose lease that runs out. */
    void advance(Duration by) {
        advancedBy.addAndGet(by.toNanos());
        inTable(wakes -> {
            for (boolean permitSpace : new boolean[] {false, true}) {
                for (String lock : List.copyOf((permitSpace ? permits : locks).keySet())) {
                    settle(open(lock, permitSpace, wakes), wakes);
                }
            }
            return null;
        });
    }

    List<MemEvent> events() {
        return inTable(wakes -> List.copyOf(events));
    }

    /** The table, for a failed test's report. */
    String describe() {
        List<LockInfo> held = list("");
        return "mem namespace '" + name + "' at " + instant(now()) + ": " + held.size() + " held"
                + (held.isEmpty()
                        ? ""
                        : "\n  "
                                + String.join(
                                        "\n  ",
                                        held.stream().map(LockInfo::toString).toList()));
    }

    @Override
    public long nextToken() {
        return ++lastToken;
    }

    @Override
    public void record(MemEvent.Type type, MemHolds.Hold hold) {
        if (events.size() == EVENTS_KEPT) {
            events.removeFirst();
        }
        LockRequest request = hold.request;
        events.addLast(new MemEvent(
                type, request.name(), request.kind(), request.ownerId(), request.holder(), hold.token, instant(now())));
    }
}
