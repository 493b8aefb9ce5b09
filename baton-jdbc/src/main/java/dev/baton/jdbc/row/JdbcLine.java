package dev.baton.jdbc.row;

import dev.baton.LockMode;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.PgNotifications;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications.Subscription;
import dev.baton.spi.WaitQueue;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A backend's line of waiters, the core's {@link WaitQueue} for fair hand-off (docs/design/jdbc.md),
 * ticked by one daemon thread that also receives PostgreSQL's notifications. Failures here never fail
 * an acquisition: a waiter that could not join waits unqueued.
 */
public final class JdbcLine implements WaitQueue {
    private static final Logger log = LoggerFactory.getLogger(JdbcLine.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    static final long WINDOW_MILLIS = 2_000; // an entry counts this long after its last refresh
    static final long REFRESH_MILLIS = WINDOW_MILLIS / 4;
    static final long TICK_MILLIS = 20;
    static final long NOTIFIED_TICK_MILLIS = 100; // the listener is up: ticks only catch a missed NOTIFY
    private static final long IDLE_MILLIS = 1_000; // a contended lock's line empties between grants

    public interface Backend {
        String name();

        /** The database, or null until the first call has detected it. */
        Dialect dialect();

        Optional<Grant> tryAcquire(LockRequest request);

        /** The settled row protocol for a new attempt; an attempt that fails here sent nothing. */
        RowProtocol rows(LockRequest request);
    }

    private final Backend backend;
    private final JdbcConnections connections;
    private final PgNotifications notifications;
    private final DatabaseClock clock;

    private final Map<String, LineWaiter> waiters = new ConcurrentHashMap<>();
    private final long closeWaitMillis;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile Thread thread; // written under lock
    private boolean closed; // guarded by lock
    private boolean poked; // guarded by lock: every waiter is ticked at once
    private long sharedDue = System.nanoTime();
    private long sharedRefreshed = System.nanoTime();

    public JdbcLine(
            Backend backend, JdbcConnections connections, PgNotifications notifications, Duration operationTimeout) {
        this.backend = backend;
        this.connections = connections;
        this.notifications = notifications;
        this.clock = new DatabaseClock(connections, backend::dialect);
        this.closeWaitMillis = operationTimeout.toMillis() + 1_000;
        notifications.drivenBy(this::start, this::handed);
    }

    /** This client's LISTEN channel while the listener is up, else null. */
    private String channel() {
        return notifications.registerWaiters() ? notifications.channel() : null;
    }

    /**
     * Acquire-or-join in one statement for an exclusive request of a name met contended lately, else as
     * {@link WaitQueue#tryThenJoin}; a releaser may barge until a client's first LISTEN is up.
     */
    @Override
    public Entry enter(LockRequest request, Runnable wake) {
        RowProtocol settled = backend.rows(request);
        HandOff handOff = request.mode() == LockMode.EXCLUSIVE ? settled.handOff : null;
        if (handOff == null || !handOff.contended(request.name())) {
            Optional<Grant> first = backend.tryAcquire(request); // costs the server less on a free lock
            if (first.isPresent()) {
                return Entry.granted(first.get());
            }
        }
        LineWaiter waiter = new LineWaiter(request, wake, handOff, settled.sql.waiters, settled.sql.heldIn);
        Grant granted = join(waiter);
        if (granted != null) {
            return Entry.granted(granted); // the lock was free: nothing joined
        }
        Subscription membership = subscribe(waiter);
        Entry member = Entry.of(
                Optional.empty(),
                () -> {
                    Optional<Grant> grant = backend.tryAcquire(request);
                    if (grant.isPresent()) {
                        membership.close(); // a granted member's entry is gone: closing dequeues nothing
                    }
                    return grant;
                },
                membership::close);
        try {
            Optional<Grant> second = member.attempt();
            return second.isPresent() ? Entry.granted(second.get()) : member;
        } catch (RuntimeException e) {
            member.leave();
            throw e;
        }
    }

    private Grant join(LineWaiter waiter) {
        LockRequest request = waiter.request;
        String joinedWith = channel();
        waiters.put(request.ownerId(), waiter); // before the join: a release right after it finds it
        try {
            Grant granted = waiter.join(joinedWith, connections);
            if (granted != null) {
                waiters.remove(request.ownerId(), waiter);
                return granted;
            }
            waiter.joinedWith = joinedWith;
        } catch (SQLException | RuntimeException e) {
            log.debug(
                    "Baton lock '{}' on {}: joining the line failed, waiting unqueued: {}",
                    request.name(),
                    backend.name(),
                    e.toString());
            waiter.queued = false;
            if (waiter.handOff == null) {
                waiters.remove(request.ownerId(), waiter);
            }
        }
        return null;
    }

    /** The waiter's wake-ups by name and its place in the line, both left when the subscription closes. */
    private Subscription subscribe(LineWaiter waiter) {
        LockRequest request = waiter.request;
        if (waiter.handOff == null && !waiters.containsKey(request.ownerId())) {
            return notifications.subscribe(request.name(), waiter.onRelease); // could not join: unqueued
        }
        start();
        // A release by name (shared) or a listener back: shared waiters attempt, exclusive ones tick.
        Subscription byName =
                notifications.subscribe(request.name(), waiter.handOff == null ? waiter.onRelease : this::poke);
        waiter.registerChannel(channel(), connections, backend.name());
        return () -> {
            try {
                byName.close();
            } finally {
                if (waiters.remove(request.ownerId(), waiter)) {
                    waiter.end(connections);
                }
            }
        };
    }

    /**
     * An attempt of the core: the grant handed to its owner id, counted from the hand-off ({@link
     * DatabaseClock}); "busy" while in line with nothing handed; else {@code attempt}'s answer.
     */
    public Optional<Grant> tryAcquire(LockRequest request, Function<LockRequest, Optional<Grant>> attempt) {
        LineWaiter waiter = waiters.get(request.ownerId());
        if (waiter == null || waiter.handOff == null || !waiter.request.name().equals(request.name())) {
            return attempt.apply(request);
        }
        Grant handed = waiter.handed.getAndSet(null);
        if (handed == null && waiter.queued) {
            return Optional.empty();
        }
        if (handed != null) {
            try {
                Grant counted = clock.counted(handed, request.leaseTime());
                if (counted == null) {
                    waiter.rejoin = true; // back in line: the tick finds the lock taken over, or free
                    waiter.queued = true;
                    poke();
                    return Optional.empty();
                }
                waiter.taken = true;
                return Optional.of(counted);
            } catch (SQLException e) {
                waiter.handed.compareAndSet(null, handed); // kept; the database's answer says why
            }
        }
        Optional<Grant> grant = attempt.apply(request);
        if (grant.isPresent()) {
            waiter.taken = true;
            waiter.queued = false;
        }
        return grant;
    }

    /** A release on this backend handed {@code grant} to its owner: wakes it if it waits here. */
    public void handedHere(Grant grant) {
        LineWaiter waiter = waiters.get(grant.ownerId());
        if (waiter != null && !waiter.ended && grant.name().equals(waiter.request.name())) {
            waiter.handedOn(grant.fencingToken(), grant.expiresAt().toEpochMilli());
        }
    }

    /** A grant NOTIFYed by a release, {@code owner token expiry-ms}. */
    private void handed(String payload) {
        int second = payload.lastIndexOf(' ');
        int first = payload.lastIndexOf(' ', second - 1);
        if (first <= 0) {
            return;
        }
        LineWaiter waiter = waiters.get(payload.substring(0, first));
        if (waiter != null && waiter.handOff != null && !waiter.ended) { // an ended one releases it
            waiter.handedOn(
                    Long.parseLong(payload.substring(first + 1, second)),
                    Long.parseLong(payload.substring(second + 1)));
        }
    }

    static long tickNanos(boolean listening) {
        return TimeUnit.MILLISECONDS.toNanos(listening ? NOTIFIED_TICK_MILLIS : TICK_MILLIS);
    }

    private void signal(Runnable change) {
        lock.lock();
        try {
            change.run();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void poke() {
        signal(() -> poked = true);
    }

    private void start() {
        signal(() -> {
            if (thread == null && !closed) {
                thread = new Thread(this::run, "baton-jdbc-line-" + THREADS.incrementAndGet());
                thread.setDaemon(true);
                thread.start();
            }
        });
    }

    private void run() {
        int hurried = 0; // ticks run again at once in a row: bounded, so that a race cannot spin
        boolean idle = false;
        try {
            while (true) {
                List<LineWaiter> now;
                boolean all;
                lock.lock();
                try {
                    // Under the lock: a waiter added after an empty look finds no thread and starts one.
                    now = new ArrayList<>(waiters.values());
                    boolean quiet = now.isEmpty() && notifications.idle();
                    if (closed || (quiet && idle)) {
                        thread = null;
                        return;
                    }
                    idle = quiet;
                    if (quiet) {
                        changed.await(IDLE_MILLIS, TimeUnit.MILLISECONDS);
                        continue;
                    }
                    all = poked;
                    poked = false;
                } finally {
                    lock.unlock();
                }
                String channel = channel();
                long pause = tickNanos(channel != null);
                boolean again = false;
                List<LineWaiter> shared = new ArrayList<>();
                for (LineWaiter waiter : now) {
                    if (waiter.handOff == null) {
                        shared.add(waiter);
                    } else if (waiter.tickIfDue(all, hurried < 3, channel, backend.name())) {
                        again = true;
                    } else if (waiter.waits()) {
                        pause = Math.min(pause, Math.max(0, waiter.due - System.nanoTime()));
                    }
                }
                long t = System.nanoTime();
                if (!shared.isEmpty() && (all || t - sharedDue >= 0)) {
                    sharedDue = t + tickNanos(channel != null);
                    boolean refresh = t - sharedRefreshed >= TimeUnit.MILLISECONDS.toNanos(REFRESH_MILLIS);
                    try {
                        LineWaiter.checkShared(shared, connections, refresh);
                        sharedRefreshed = refresh ? t : sharedRefreshed;
                    } catch (SQLException | RuntimeException e) {
                        log.debug("Baton {}: checking the awaited locks failed: {}", backend.name(), e.toString());
                    }
                }
                hurried = again ? hurried + 1 : 0;
                pause = notifications.step(again ? 0 : pause);
                lock.lock();
                try {
                    if (!closed && !poked && pause > 0) {
                        changed.awaitNanos(pause);
                    }
                } finally {
                    lock.unlock();
                }
            }
        } catch (InterruptedException e) {
            // ends, as on close
        } finally {
            signal(() -> {
                if (thread == Thread.currentThread()) {
                    thread = null;
                }
            });
            notifications.stop();
        }
    }

    /** Stops the thread, which closes the LISTEN connection, and waits for it; entries left expire. */
    public void close() {
        signal(() -> closed = true);
        Thread running = thread;
        if (running != null && running != Thread.currentThread()) {
            try {
                running.join(closeWaitMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
