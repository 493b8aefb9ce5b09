package dev.baton.jdbc;

import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications.Subscription;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of fair hand-off ({@link HandOff}), for exclusive waiters of the table and
 * optimistic strategies, like baton-redis's hand-over queue: a waiter joins the line once; a release
 * hands it the lock and wakes it with the grant: on PostgreSQL a NOTIFY with {@code owner token
 * expiry-ms} ({@link PgNotifications} passes it here by owner id), on H2 and MariaDB a call right
 * after the release's commit when the releasing client is in this JVM ({@link InProcessHandOvers}),
 * else the waiter's own poll. The core's next {@code tryAcquire} for that owner id returns the stored
 * grant without a round trip ({@link #answer}). While it is in line with nothing handed, {@code
 * tryAcquire} answers "busy" without asking the database: the line decides.
 *
 * <ul>
 *   <li>One daemon thread ticks the waiters: on PostgreSQL each every {@value
 *       FairQueue#NOTIFIED_TICK_MILLIS} ms ({@value FairQueue#TICK_MILLIS} ms while the listener is
 *       down), refreshing its entry and reading the lock; on H2 and MariaDB a read of the lock row by
 *       owner id with a backoff from 1 to {@value FairQueue#TICK_MILLIS} ms after each join, the entry
 *       refreshed every {@value FairQueue#REFRESH_MILLIS} ms. Owner: the wake-up was missed, the grant
 *       is stored. Free, expired, or out of line: it runs acquire-or-join again (the head takes an
 *       expired lock over; the others keep their place).
 *   <li>Ending the wait (the subscription closed) without having taken a grant: leave the line and,
 *       if the entry was already gone, release by owner id, which hands the lock on to the next in
 *       line; never the other way round, since one statement's snapshot would miss a hand-off that
 *       committed while it waited. A waiter's database work and its end are serialized, so a tick
 *       never grants to a waiter that already left.
 * </ul>
 */
final class HandOverQueue {
    private static final Logger log = LoggerFactory.getLogger(HandOverQueue.class);
    private static final AtomicInteger THREADS = new AtomicInteger();
    /** How long the thread stays when nobody waits. */
    private static final long IDLE_MILLIS = 1_000;

    private static final class Waiter {
        final LockRequest request;
        final Runnable onRelease;
        final HandOff handOff;
        /** Handed by a release (or granted by a join), not yet taken by the core. */
        final AtomicReference<Grant> handed = new AtomicReference<>();
        /** In line with nothing handed: the core's attempts are answered "busy" here. */
        volatile boolean queued;
        /** The waiter must be ticked again at once (a release raced its join). */
        volatile boolean rejoin;

        volatile boolean ended;
        /** The core took the last grant (from here or from the database). */
        volatile boolean taken;
        /** Whether the entry may be in the waiters table (a hand-off deletes it). */
        volatile boolean mayBeInLine;
        /** The token of the last grant stored: the tick and the NOTIFY may both find the same one. */
        long lastToken; // guarded by handed
        /** When the thread ticks it next (System.nanoTime), and its polls since it last joined. */
        volatile long due;

        volatile int polls;
        /** When its entry was last refreshed (System.nanoTime); H2 and MariaDB only. */
        long refreshed; // guarded by this
        /** Its end of the JVM-wide line, while registered there ({@link InProcessHandOvers}). */
        InProcessHandOvers.Heir heir;

        Waiter(LockRequest request, Runnable onRelease, HandOff handOff) {
            this.request = request;
            this.onRelease = onRelease;
            this.handOff = handOff;
        }
    }

    private final Supplier<String> backendName;
    /** This client's LISTEN channel while its listener is up, else null. */
    private final Supplier<String> channel;
    /** Where a handed grant's expiry on the database's clock falls on this JVM's. */
    private final DatabaseClock clock;

    private final Map<String, Waiter> waiters = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private Thread thread; // guarded by lock
    private boolean closed; // guarded by lock
    private boolean poked; // guarded by lock
    /** Whether H2's and MariaDB's waiters are woken by a release in this JVM (off: tests of the poll). */
    private volatile boolean inProcess = true;

    HandOverQueue(Supplier<String> backendName, Supplier<String> channel, DatabaseClock clock) {
        this.backendName = backendName;
        this.channel = channel;
        this.clock = clock;
    }

    /** Joins the line (acquire-or-join), which may grant at once; {@code notified} ends with it. */
    Subscription subscribe(LockRequest request, Runnable onRelease, HandOff handOff, Subscription notified) {
        Waiter waiter = new Waiter(request, onRelease, handOff);
        waiters.put(request.ownerId(), waiter);
        if (!handOff.notifiesHeir() && inProcess) {
            // Before the join: a release right after it finds the heir here.
            waiter.heir = grant -> {
                if (!waiter.ended && grant.name().equals(request.name())) {
                    waiter.mayBeInLine = false; // the hand-off deleted the entry
                    hand(
                            waiter,
                            HandOff.grant(
                                    request,
                                    grant.fencingToken(),
                                    grant.expiresAt().toEpochMilli()));
                }
            };
            InProcessHandOvers.register(request.ownerId(), waiter.heir);
        }
        synchronized (waiter) {
            waiter.refreshed = System.nanoTime();
            join(waiter);
        }
        startThread();
        return () -> {
            try {
                notified.close();
            } finally {
                end(waiter);
            }
        };
    }

    /**
     * The answer to the core's attempt for this owner id, or null to ask the database. A handed grant
     * counts from the hand-off on the database's clock ({@link DatabaseClock}), not from this attempt,
     * which may come long after it (the client was stopped): one whose lease ran out is not handed out.
     */
    Optional<Grant> answer(LockRequest request) {
        Waiter waiter = waiters.get(request.ownerId());
        if (waiter == null || !waiter.request.name().equals(request.name())) {
            return null;
        }
        Grant handed = waiter.handed.getAndSet(null);
        if (handed == null) {
            return waiter.queued ? Optional.empty() : null;
        }
        Grant counted;
        try {
            counted = clock.counted(handed, request.leaseTime());
        } catch (SQLException e) {
            waiter.handed.compareAndSet(null, handed); // tried again later; the database's answer says why
            return null;
        }
        if (counted == null) {
            waiter.rejoin = true; // back in line: the tick finds the lock taken over, or free, and joins
            waiter.queued = true;
            poke();
            return Optional.empty();
        }
        waiter.taken = true;
        return Optional.of(counted);
    }

    /** The core took a grant for this owner id from the database itself (not from the line). */
    void granted(LockRequest request) {
        Waiter waiter = waiters.get(request.ownerId());
        if (waiter != null) {
            waiter.taken = true;
            waiter.queued = false;
        }
    }

    /** A NOTIFY payload after its prefix: {@code owner token expiry-ms}. */
    void handed(String payload) {
        int second = payload.lastIndexOf(' ');
        int first = payload.lastIndexOf(' ', second - 1);
        if (first <= 0) {
            return;
        }
        Waiter waiter = waiters.get(payload.substring(0, first));
        if (waiter == null) {
            return; // it ended: its end leaves, finds the entry gone and releases
        }
        Grant grant = HandOff.grant(
                waiter.request,
                Long.parseLong(payload.substring(first + 1, second)),
                Long.parseLong(payload.substring(second + 1)));
        if (!waiter.ended) {
            waiter.mayBeInLine = false; // the hand-off deleted the entry
            hand(waiter, grant);
        }
    }

    /** Whether H2's and MariaDB's waiters register to be woken by a release in this JVM. */
    void inProcess(boolean on) {
        inProcess = on;
    }

    /** Ticks every waiter now (a release notification by name, a listener that came back). */
    void poke() {
        lock.lock();
        try {
            poked = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void hand(Waiter waiter, Grant grant) {
        synchronized (waiter.handed) {
            if (grant.fencingToken() == waiter.lastToken) {
                return; // stored already (and perhaps taken): never hand one grant twice
            }
            waiter.lastToken = grant.fencingToken();
        }
        waiter.taken = false;
        waiter.handed.set(grant); // before queued: an attempt in between answers "busy", then wakes
        waiter.queued = false;
        waiter.onRelease.run();
    }

    // guarded by waiter
    private void join(Waiter waiter) {
        waiter.rejoin = false;
        try {
            HandOff.Joined joined = waiter.handOff.join(waiter.request, channel.get());
            switch (joined.outcome()) {
                case GRANTED -> hand(waiter, joined.grant());
                case QUEUED -> {
                    waiter.mayBeInLine = true;
                    waiter.polls = 0;
                    waiter.due = System.nanoTime() + delayNanos(waiter);
                    waiter.queued = true;
                    if (waiter.handed.get() != null) {
                        waiter.queued = false; // handed in this JVM while the join returned
                    }
                }
                case RACED -> {
                    waiter.rejoin = true; // ticked again at once (subscribe wakes the thread)
                    waiter.queued = true;
                }
            }
        } catch (SQLException | RuntimeException e) {
            log.debug(
                    "Baton lock '{}' on {}: joining the line failed, the core polls: {}",
                    waiter.request.name(),
                    backendName.get(),
                    e.toString());
            waiter.queued = false;
        }
    }

    // guarded by waiter
    private void tick(Waiter waiter) throws SQLException {
        // Always read first, also after a raced join: the race may have been a hand-off to this very
        // waiter, which a join cannot see (it would be refused again and again).
        waiter.rejoin = false;
        long now = System.nanoTime();
        boolean refresh = now - waiter.refreshed >= TimeUnit.MILLISECONDS.toNanos(FairQueue.REFRESH_MILLIS);
        HandOff.Tick tick = waiter.handOff.tick(waiter.request, refresh);
        if (refresh) {
            waiter.refreshed = now;
        }
        if (tick.owned() != null) {
            waiter.mayBeInLine = false;
            hand(waiter, tick.owned());
        } else if (tick.free() || !tick.inLine()) {
            join(waiter);
        }
    }

    /** The wait ended: leave the line, and release by owner id what was handed but not taken. */
    private void end(Waiter waiter) {
        waiters.remove(waiter.request.ownerId(), waiter);
        if (waiter.heir != null) {
            InProcessHandOvers.unregister(waiter.request.ownerId(), waiter.heir);
        }
        synchronized (waiter) {
            waiter.ended = true;
            if (waiter.taken && !waiter.mayBeInLine) {
                return; // taken from a hand-off, which deleted the entry
            }
            String name = waiter.request.name();
            String owner = waiter.request.ownerId();
            boolean left;
            try {
                left = waiter.handOff.leave(name, owner);
            } catch (SQLException e) {
                throw new IllegalStateException(
                        "leaving the line failed; the entry stops counting within " + FairQueue.WINDOW_MILLIS
                                + " ms, and a lock handed to it is freed when its lease expires",
                        e);
            }
            if (!left && !waiter.taken) {
                waiter.handOff.release(name, owner); // handed meanwhile: pass it on
            }
        }
    }

    private void startThread() {
        lock.lock();
        try {
            if (thread == null && !closed) {
                thread = new Thread(this::watch, "baton-jdbc-handover-" + THREADS.incrementAndGet());
                thread.setDaemon(true);
                thread.start();
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Ticks the waiters when due; stops when nobody waited for a second. */
    private void watch() {
        int hurried = 0; // ticks run again at once in a row: bounded, so that a race cannot spin
        boolean idle = false;
        while (true) {
            List<Waiter> now;
            boolean all;
            lock.lock();
            try {
                // Under the lock: a waiter added after an empty look finds no thread and starts one.
                now = new ArrayList<>(waiters.values());
                if (now.isEmpty() && !closed && !idle) {
                    // A contended lock empties the line between grants: starting a thread for each
                    // wait cost more CPU than the wait's statements.
                    idle = true;
                    changed.await(IDLE_MILLIS, TimeUnit.MILLISECONDS);
                    continue;
                }
                if (closed || now.isEmpty()) {
                    thread = null;
                    return;
                }
                idle = false;
                all = poked;
                poked = false;
            } catch (InterruptedException e) {
                thread = null;
                return;
            } finally {
                lock.unlock();
            }
            boolean again = false;
            long wait = TimeUnit.MILLISECONDS.toNanos(FairQueue.NOTIFIED_TICK_MILLIS);
            for (Waiter waiter : now) {
                synchronized (waiter) {
                    if (waiter.ended || waiter.handed.get() != null || !waiter.queued) {
                        continue;
                    }
                    long t = System.nanoTime();
                    if (!all && waiter.due - t > 0) {
                        wait = Math.min(wait, waiter.due - t);
                        continue;
                    }
                    waiter.polls++;
                    waiter.due = t + delayNanos(waiter); // a join in the tick starts the backoff again
                    try {
                        tick(waiter);
                    } catch (SQLException | RuntimeException e) {
                        log.debug(
                                "Baton lock '{}' on {}: the waiter's tick failed: {}",
                                waiter.request.name(),
                                backendName.get(),
                                e.toString());
                    }
                    if (waiter.rejoin && hurried < 3) {
                        waiter.due = System.nanoTime();
                        again = true;
                    }
                    wait = Math.min(wait, Math.max(0, waiter.due - System.nanoTime()));
                }
            }
            hurried = again ? hurried + 1 : 0;
            lock.lock();
            try {
                if (!closed && !again && !poked && wait > 0) {
                    changed.awaitNanos(wait);
                }
            } catch (InterruptedException e) {
                thread = null;
                return;
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * The pause before a waiter's next tick: PostgreSQL's fixed one, a fallback for a missed NOTIFY;
     * H2's and MariaDB's backoff from 1 ms after each join to {@value FairQueue#TICK_MILLIS} ms.
     */
    private long delayNanos(Waiter waiter) {
        long millis = waiter.handOff.notifiesHeir()
                ? channel.get() == null ? FairQueue.TICK_MILLIS : FairQueue.NOTIFIED_TICK_MILLIS
                : Math.min(FairQueue.TICK_MILLIS, 1L << Math.min(waiter.polls, 5));
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** Stops the thread; entries left stop counting after the window. */
    void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
