package dev.baton.jdbc.row;

import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.PgNotifications;
import dev.baton.jdbc.internal.SqlTemplate;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread of a backend's waiting: it ticks the fair waiters of its {@link JdbcLine} when due
 * (see there for how often) and receives PostgreSQL's release notifications between the ticks
 * ({@link PgNotifications}, whose connection it opens, checks and closes). Started by the first wait,
 * gone after {@value #IDLE_MILLIS} ms with neither waiters nor a LISTEN connection, stopped by
 * {@link #close}.
 */
public final class LineTicks {
    private static final Logger log = LoggerFactory.getLogger(LineTicks.class);
    private static final AtomicInteger THREADS = new AtomicInteger();
    /** How long the thread stays when nobody waits: a contended lock empties the line between grants. */
    private static final long IDLE_MILLIS = 1_000;

    private final Supplier<String> backendName;
    private final Collection<LineWaiter> waiters;
    private final JdbcConnections connections;
    /** PostgreSQL's notifications, received on this thread. */
    private final PgNotifications listener;

    private final long closeWaitMillis;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private Thread thread; // guarded by lock
    private boolean closed; // guarded by lock
    private boolean poked; // guarded by lock
    /** When the shared waiters are checked next, and when their entries were last refreshed. */
    private long sharedDue = System.nanoTime();

    private long sharedRefreshed = System.nanoTime();

    LineTicks(
            Supplier<String> backendName,
            Collection<LineWaiter> waiters,
            JdbcConnections connections,
            PgNotifications listener,
            Duration operationTimeout) {
        this.backendName = backendName;
        this.waiters = waiters;
        this.connections = connections;
        this.listener = listener;
        this.closeWaitMillis = operationTimeout.toMillis() + 1_000;
        listener.drivenBy(this::start);
    }

    /** Ticks every waiter now. */
    void poke() {
        lock.lock();
        try {
            poked = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void start() {
        lock.lock();
        try {
            if (thread == null && !closed) {
                thread = new Thread(this::watch, "baton-jdbc-line-" + THREADS.incrementAndGet());
                thread.setDaemon(true);
                thread.start();
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ticks the waiters when due and, between ticks, receives PostgreSQL's notifications ({@link
     * PgNotifications#step}) or pauses; stops after {@value #IDLE_MILLIS} ms with neither waiters nor
     * a LISTEN connection.
     */
    private void watch() {
        int hurried = 0; // ticks run again at once in a row: bounded, so that a race cannot spin
        boolean idle = false;
        try {
            while (true) {
                List<LineWaiter> now;
                boolean all;
                lock.lock();
                try {
                    // Under the lock: a waiter added after an empty look finds no thread and starts one.
                    now = new ArrayList<>(waiters);
                    boolean quiet = now.isEmpty() && listener.idle();
                    if (closed || (quiet && idle)) {
                        thread = null; // under the lock: a waiter that comes next starts another
                        return;
                    }
                    if (quiet) {
                        idle = true;
                        changed.await(IDLE_MILLIS, TimeUnit.MILLISECONDS);
                        continue;
                    }
                    idle = false;
                    all = poked;
                    poked = false;
                } finally {
                    lock.unlock();
                }
                boolean listening = channel() != null;
                long wait =
                        TimeUnit.MILLISECONDS.toNanos(listening ? JdbcLine.NOTIFIED_TICK_MILLIS : JdbcLine.TICK_MILLIS);
                boolean again = false;
                List<LineWaiter> shared = new ArrayList<>();
                for (LineWaiter waiter : now) {
                    if (waiter.handOff == null) {
                        shared.add(waiter);
                    } else if (tickIfDue(waiter, all, hurried < 3, listening)) {
                        again = true;
                    } else if (waiter.waits()) {
                        wait = Math.min(wait, Math.max(0, waiter.due - System.nanoTime()));
                    }
                }
                if (!shared.isEmpty() && (all || System.nanoTime() - sharedDue >= 0)) {
                    checkShared(shared, listening);
                }
                hurried = again ? hurried + 1 : 0;
                long pause = again ? 0 : wait;
                if (!listener.step(pause)) {
                    pause = Math.min(pause, listener.retryInNanos());
                    lock.lock();
                    try {
                        if (!closed && !poked && pause > 0) {
                            changed.awaitNanos(pause);
                        }
                    } finally {
                        lock.unlock();
                    }
                }
            }
        } catch (InterruptedException e) {
            // ends, as on close
        } finally {
            lock.lock();
            try {
                if (thread == Thread.currentThread()) {
                    thread = null;
                }
            } finally {
                lock.unlock();
            }
            if (listener.connected()) {
                listener.disconnect(PgNotifications.State.STOPPED);
            }
        }
    }

    /** This client's LISTEN channel while its listener is up, else null. */
    private String channel() {
        return listener.registerWaiters() ? listener.channel() : null;
    }

    /** Ticks an exclusive waiter if due; true when it must be ticked again at once. */
    private boolean tickIfDue(LineWaiter waiter, boolean all, boolean mayHurry, boolean listening) {
        synchronized (waiter) {
            long t = System.nanoTime();
            if (!waiter.waits() || (!all && waiter.due - t > 0)) {
                return false;
            }
            waiter.polls++;
            waiter.due = t + waiter.delayNanos(listening); // a join in the tick starts the backoff again
            try {
                waiter.tick(channel(), TimeUnit.MILLISECONDS.toNanos(JdbcLine.REFRESH_MILLIS));
            } catch (SQLException | RuntimeException e) {
                log.debug(
                        "Baton lock '{}' on {}: the waiter's tick failed: {}",
                        waiter.request.name(),
                        backendName.get(),
                        e.toString());
            }
            if (waiter.rejoin && mayHurry) {
                waiter.due = System.nanoTime();
                return true;
            }
            return false;
        }
    }

    /** One statement: which of the shared waiters' locks are free (wake them); the refresh when due. */
    private void checkShared(List<LineWaiter> shared, boolean listening) {
        long t = System.nanoTime();
        sharedDue = t + TimeUnit.MILLISECONDS.toNanos(listening ? JdbcLine.NOTIFIED_TICK_MILLIS : JdbcLine.TICK_MILLIS);
        boolean refresh = t - sharedRefreshed >= TimeUnit.MILLISECONDS.toNanos(JdbcLine.REFRESH_MILLIS);
        Set<String> names = new HashSet<>();
        for (LineWaiter w : shared) {
            names.add(w.request.name());
        }
        List<String> nameList = new ArrayList<>(names);
        WaiterStatements sql = shared.get(0).shared;
        try (JdbcSession db = connections.open(false)) {
            Set<String> held = db.all(
                    shared.get(0).heldIn + SqlTemplate.placeholders(nameList.size(), 1),
                    rs -> {
                        Set<String> found = new HashSet<>();
                        while (rs.next()) {
                            found.add(rs.getString(1));
                        }
                        return found;
                    },
                    nameList.toArray());
            for (LineWaiter w : shared) {
                if (!held.contains(w.request.name())) {
                    w.onRelease.run();
                }
            }
            if (refresh) {
                sharedRefreshed = t;
                List<Object> pairs = new ArrayList<>();
                for (LineWaiter w : shared) {
                    pairs.add(w.request.name());
                    pairs.add(w.request.ownerId());
                }
                db.update(sql.refreshIn + SqlTemplate.placeholders(shared.size(), 2), pairs.toArray());
                List<Object> purge = new ArrayList<>();
                purge.add(-JdbcLine.WINDOW_MILLIS);
                purge.addAll(nameList);
                db.update(sql.purgeIn + SqlTemplate.placeholders(nameList.size(), 1), purge.toArray());
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("Baton {}: checking the awaited locks failed: {}", backendName.get(), e.toString());
        }
    }

    /**
     * Stops the thread and waits for it (at most the operation timeout and a second), which closes the
     * LISTEN connection; the entries left stop counting after the window.
     */
    void close() {
        Thread running;
        lock.lock();
        try {
            closed = true;
            running = thread;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (running != null && running != Thread.currentThread()) {
            try {
                running.join(closeWaitMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
