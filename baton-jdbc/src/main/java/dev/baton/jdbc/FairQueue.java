package dev.baton.jdbc;

import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of fair hand-off for the table and optimistic strategies (the SQL is in {@link
 * WaiterStatements}). It is the backend's {@link ReleaseNotifications}, so the core tells it when a
 * request starts waiting (after its first refused attempt) and when it stops (granted, timed out,
 * interrupted, failed):
 *
 * <ul>
 *   <li>Start: the request joins the line in {@code <table>_waiters} (one statement; the contended path
 *       only: a free lock is taken by the acquire statement alone). A {@code tryAcquire()} that is
 *       refused never joins, so it holds nobody back.
 *   <li>While waiting: one daemon thread per backend refreshes this client's entries every {@value
 *       #REFRESH_MILLIS} ms (one statement for all of them) and checks every {@value #TICK_MILLIS} ms
 *       ({@value #NOTIFIED_TICK_MILLIS} ms while PostgreSQL's listener is up: a release NOTIFYs the
 *       head of the line's client, see {@link WaiterStatements#notifyChannel}) which of the awaited
 *       locks are free, waking their waiters at once. Without it a waiter at the
 *       head of the line could sit in a long poll pause while the lock, reserved for it, stays idle
 *       (H2 and MariaDB have no notifications; on PostgreSQL NOTIFY wakes only one registered client,
 *       which need not be the head).
 *   <li>Stop: the entry is deleted (one statement). If that fails, or the client dies, the entry
 *       stops counting {@value #WINDOW_MILLIS} ms after its last refresh: a dead waiter holds a
 *       released lock back for at most that long, far less than any useful lease.
 * </ul>
 *
 * <p>Exclusive waiters are the {@link HandOverQueue}'s instead: the release hands the lock to the
 * head of the line ({@link HandOff}), and the backend's attempts go through {@link #tryAcquire} to
 * take the grant it was handed. Shared waiters keep this queue.
 *
 * <p>Failures here never fail an acquisition: a waiter that could not join simply waits unqueued
 * (it may then wait longer), and the core keeps polling as its fallback.
 */
final class FairQueue implements ReleaseNotifications {
    private static final Logger log = LoggerFactory.getLogger(FairQueue.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** How long an entry counts after its last refresh. */
    static final long WINDOW_MILLIS = 2_000;
    /** How often the entries of live waiters are refreshed: a quarter of the window. */
    static final long REFRESH_MILLIS = WINDOW_MILLIS / 4;
    /** How often the awaited locks are checked for a release. */
    static final long TICK_MILLIS = 20;
    /**
     * The same while PostgreSQL's listener is up: a release then NOTIFYs the head of the line's
     * client directly, and the check is only the fallback for a missed notification.
     */
    static final long NOTIFIED_TICK_MILLIS = 100;

    /** Opens an auto-commit session. */
    interface Sessions {
        JdbcSession open() throws SQLException;
    }

    private record Waiter(String name, String owner, Runnable onRelease) {}

    private final Supplier<String> backendName;
    private final PgNotifications inner;
    private final Sessions sessions;
    /**
     * The protocol of a lock name, settled once: its waiter statements, the query up to its IN list
     * of names returning the held ones, and the hand-off of exclusive grants (or null).
     */
    private final Function<String, JdbcProtocol> protocol;
    /** PostgreSQL: this client's LISTEN channel while its listener is up, else null. */
    private final Supplier<String> channel;
    /** The exclusive waiters that a release hands the lock to. */
    private final HandOverQueue handOver;

    private final Map<String, Waiter> waiters = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private Thread thread; // guarded by lock
    private boolean closed; // guarded by lock

    FairQueue(
            Supplier<String> backendName,
            PgNotifications inner,
            Sessions sessions,
            Function<String, JdbcProtocol> protocol,
            Supplier<String> channel,
            Supplier<Dialect> dialect) {
        this.backendName = backendName;
        this.handOver = new HandOverQueue(backendName, channel, new DatabaseClock(sessions, dialect));
        this.channel = channel;
        this.inner = inner;
        this.sessions = sessions;
        this.protocol = protocol;
    }

    @Override
    public boolean supported() {
        return true;
    }

    @Override
    public Subscription subscribe(String name, Runnable onRelease) {
        return inner.subscribe(name, onRelease);
    }

    /**
     * Joins the line (locks only; permits have their own tables), and wakes the waiter on release;
     * where the protocol hands exclusive grants over ({@link HandOff}), the {@link HandOverQueue} does.
     *
     * <p>The entry is written before the release notifications are subscribed to: a client's first
     * wait also opens its listener's connection and waits for its LISTEN, which can take longer than
     * many hand-offs, and until the entry exists nothing stops the releasing client from taking the
     * lock straight back, over and over ({@code docs/design/fair-handoff.md}). An entry written while
     * the listener was not up yet gets the channel once it is ({@link WaiterStatements#registerChannel});
     * a release before that is seen by the tick.
     */
    public Subscription join(LockRequest request, Runnable onRelease) {
        if (request.kind() == LockKind.PERMIT) {
            return notified(request, onRelease);
        }
        JdbcProtocol settled = protocol.apply(request.name());
        WaiterStatements sql = settled.waiters();
        String joinedWith = channel.get();
        HandOff handOff = request.mode() != LockMode.EXCLUSIVE ? null : settled.handOff();
        Subscription subscription;
        if (handOff != null) {
            AtomicReference<Subscription> byName = new AtomicReference<>(() -> {});
            subscription = handOver.subscribe(
                    request, onRelease, handOff, () -> byName.get().close());
            // A wake-up by name (a shared release, a listener back) makes the line tick at once.
            byName.set(notified(request, handOver::poke));
        } else {
            subscription = joinThenNotified(request, onRelease, sql, joinedWith);
        }
        if (joinedWith == null && sql.registerChannel != null && channel.get() != null) {
            registerChannel(request, sql);
        }
        return subscription;
    }

    private Subscription notified(LockRequest request, Runnable onRelease) {
        return inner.supported() ? inner.join(request, onRelease) : () -> {};
    }

    private Subscription joinThenNotified(
            LockRequest request, Runnable onRelease, WaiterStatements sql, String joinedWith) {
        try (JdbcSession db = sessions.open()) {
            if (sql.joinTakesChannel()) {
                db.update(sql.join, request.name(), request.ownerId(), joinedWith);
            } else {
                db.update(sql.join, request.name(), request.ownerId());
            }
        } catch (SQLException | RuntimeException e) {
            log.debug(
                    "Baton lock '{}' on {}: joining the waiters failed, waiting unqueued: {}",
                    request.name(),
                    backendName.get(),
                    e.toString());
            return notified(request, onRelease);
        }
        Waiter waiter = new Waiter(request.name(), request.ownerId(), onRelease);
        waiters.put(request.ownerId(), waiter);
        startThread();
        Subscription notified = notified(request, onRelease);
        return () -> {
            try {
                notified.close();
            } finally {
                leave(waiter, sql);
            }
        };
    }

    /** The listener came up while the entry was written: releases NOTIFY this client from now on. */
    private void registerChannel(LockRequest request, WaiterStatements sql) {
        try (JdbcSession db = sessions.open()) {
            db.update(sql.registerChannel, channel.get(), request.name(), request.ownerId());
        } catch (SQLException | RuntimeException e) {
            log.debug(
                    "Baton lock '{}' on {}: recording the listener's channel failed, the tick sees releases: {}",
                    request.name(),
                    backendName.get(),
                    e.toString());
        }
    }

    private void leave(Waiter waiter, WaiterStatements sql) {
        if (waiters.remove(waiter.owner(), waiter)) {
            try (JdbcSession db = sessions.open()) {
                db.update(sql.leave, waiter.name(), waiter.owner());
            } catch (SQLException e) {
                throw new IllegalStateException(
                        "leaving the waiters failed; the entry stops counting within " + WINDOW_MILLIS + " ms", e);
            }
        }
    }

    private void startThread() {
        lock.lock();
        try {
            if (thread == null && !closed) {
                thread = new Thread(this::watch, "baton-jdbc-fair-" + THREADS.incrementAndGet());
                thread.setDaemon(true);
                thread.start();
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes waiters of free locks every tick and refreshes the entries; stops when nobody waits. */
    private void watch() {
        long lastRefresh = 0;
        while (true) {
            List<Waiter> now = new ArrayList<>(waiters.values());
            lock.lock();
            try {
                if (closed || now.isEmpty()) {
                    thread = null;
                    return;
                }
            } finally {
                lock.unlock();
            }
            try {
                long t = System.nanoTime();
                boolean refresh = t - lastRefresh >= TimeUnit.MILLISECONDS.toNanos(REFRESH_MILLIS);
                check(now, refresh);
                if (refresh) {
                    lastRefresh = t;
                }
            } catch (SQLException | RuntimeException e) {
                log.debug("Baton {}: checking the awaited locks failed: {}", backendName.get(), e.toString());
            }
            lock.lock();
            try {
                if (!closed) {
                    changed.await(channel.get() == null ? TICK_MILLIS : NOTIFIED_TICK_MILLIS, TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                thread = null;
                return;
            } finally {
                lock.unlock();
            }
        }
    }

    /** One tick: which awaited locks are free (wake their waiters), and the refresh when due. */
    private void check(List<Waiter> now, boolean refresh) throws SQLException {
        Set<String> names = new HashSet<>();
        for (Waiter w : now) {
            names.add(w.name());
        }
        String any = now.get(0).name();
        JdbcProtocol settled = protocol.apply(any);
        WaiterStatements sql = settled.waiters();
        List<String> nameList = new ArrayList<>(names);
        try (JdbcSession db = sessions.open()) {
            Set<String> held = db.all(
                    settled.heldIn() + SqlTemplate.placeholders(nameList.size(), 1),
                    rs -> {
                        Set<String> found = new HashSet<>();
                        while (rs.next()) {
                            found.add(rs.getString(1));
                        }
                        return found;
                    },
                    nameList.toArray());
            for (Waiter w : now) {
                if (!held.contains(w.name())) {
                    w.onRelease().run();
                }
            }
            if (refresh) {
                List<Object> pairs = new ArrayList<>();
                for (Waiter w : now) {
                    pairs.add(w.name());
                    pairs.add(w.owner());
                }
                db.update(sql.refreshIn + SqlTemplate.placeholders(now.size(), 2), pairs.toArray());
                List<Object> purge = new ArrayList<>();
                purge.add(-WINDOW_MILLIS);
                purge.addAll(nameList);
                db.update(sql.purgeIn + SqlTemplate.placeholders(nameList.size(), 1), purge.toArray());
            }
        }
    }

    /**
     * An attempt of the core: the grant a release handed to its owner id (without asking the
     * database), "busy" while it is in line with nothing handed ({@link HandOverQueue#answer}), or
     * else {@code attempt}'s answer, a grant of which the line is told.
     */
    Optional<Grant> tryAcquire(LockRequest request, Function<LockRequest, Optional<Grant>> attempt) {
        Optional<Grant> handed = handOver.answer(request);
        if (handed != null) {
            return handed;
        }
        Optional<Grant> grant = attempt.apply(request);
        if (grant.isPresent()) {
            handOver.granted(request);
        }
        return grant;
    }

    /** For tests: whether H2's and MariaDB's waiters are woken by a release in this JVM, or poll. */
    void handOverInProcess(boolean on) {
        handOver.inProcess(on);
    }

    /** A grant NOTIFYed by a release: {@code owner token expiry-ms}. */
    void handedOver(String payload) {
        handOver.handed(payload);
    }

    /** Stops the threads; the entries left stop counting after the window. */
    void close() {
        handOver.close();
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
