package dev.baton.jdbc.row;

import dev.baton.LockMode;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.PgNotifications;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications.Subscription;
import dev.baton.spi.WaitQueue;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one line of a backend's waiters: every backend has one, whose thread ({@link LineTicks}) also
 * receives PostgreSQL's release notifications for polling waiters ({@link PgNotifications}); where
 * the table and optimistic strategies hand off fairly it is the core's {@link WaitQueue} (the SQL is
 * the protocol's {@link HandOff} and {@link WaiterStatements}): the core enters a refused request,
 * which joins the waiters table, and this class wakes it when its turn may have come. It owns the
 * waiters by owner id, their wake-ups, the one daemon thread that ticks them (started on the first
 * wait, gone after a second with neither waiters nor a LISTEN connection) and {@link #close}.
 *
 * <ul>
 *   <li>Exclusive waiters ({@link LineWaiter} with a hand-off): the release writes the head of the
 *       line as the new owner and wakes it with the grant: on PostgreSQL by a NOTIFY with {@code owner
 *       token expiry-ms} ({@link #handed(String)}), on H2 and MariaDB right after the release's commit
 *       when the release ran on this backend ({@link #handedHere}), else by the waiter's own tick. The
 *       core's next attempt for that owner id returns the stored grant without a round trip ({@link
 *       #tryAcquire}); while it is in line with nothing handed, the answer is "busy" without asking
 *       the database. Ticks: on PostgreSQL every {@value #NOTIFIED_TICK_MILLIS} ms ({@value
 *       #TICK_MILLIS} ms while the listener is down), on H2 and MariaDB with a backoff from 1 to
 *       {@value #TICK_MILLIS} ms after each join; a tick reads the lock row by owner id, and refreshes
 *       the entry every {@value #REFRESH_MILLIS} ms.
 *   <li>Shared waiters: their entries hold exclusive takers back; every tick one statement asks
 *       which awaited locks are free (waking their waiters) and every {@value #REFRESH_MILLIS} ms one
 *       statement refreshes all their entries.
 *   <li>An entry whose client died stops counting {@value #WINDOW_MILLIS} ms after its last refresh:
 *       a dead waiter holds a released lock back for at most that long, far less than any useful lease.
 * </ul>
 *
 * <p>Failures here never fail an acquisition: a waiter that could not join waits unqueued, and the
 * core's attempts, at least once per its poll's longest pause, are the fallback.
 */
public final class JdbcLine implements WaitQueue {
    private static final Logger log = LoggerFactory.getLogger(JdbcLine.class);

    /** How long an entry counts after its last refresh. */
    static final long WINDOW_MILLIS = 2_000;
    /** How often the entries of live waiters are refreshed: a quarter of the window. */
    static final long REFRESH_MILLIS = WINDOW_MILLIS / 4;
    /** How often waiters are ticked while no notification can wake them. */
    static final long TICK_MILLIS = 20;
    /** The same while PostgreSQL's listener is up: the tick is only the fallback for a missed NOTIFY. */
    static final long NOTIFIED_TICK_MILLIS = 100;

    /** What the line asks of the backend it serves. */
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
    /** Where a handed grant's expiry on the database's clock falls on this JVM's. */
    private final DatabaseClock clock;

    private final Map<String, LineWaiter> waiters = new ConcurrentHashMap<>();
    private final LineTicks ticks;

    /**
     * @param backend whose attempts come back here first ({@link #tryAcquire}) and whose settled row
     *     protocol gives the line its statements
     */
    public JdbcLine(
            Backend backend, JdbcConnections connections, PgNotifications notifications, Duration operationTimeout) {
        this.backend = backend;
        this.connections = connections;
        this.notifications = notifications;
        this.clock = new DatabaseClock(connections, backend::dialect);
        this.ticks = new LineTicks(backend::name, waiters.values(), connections, notifications, operationTimeout);
        notifications.onGrant(this::handed);
    }

    /** This client's LISTEN channel while its listener is up, else null. */
    private String channel() {
        return notifications.registerWaiters() ? notifications.channel() : null;
    }

    /**
     * An exclusive request for a name this client met contended within the last second tries and
     * joins the line in one statement (acquire-or-join); any other tries, joins the line when refused,
     * then tries once more: a release between the two would otherwise go unnoticed until the next
     * tick (an exclusive request in line answers that try without a round trip). The entry is written
     * before the release notifications are subscribed to, since the first wait of a client also waits
     * for its LISTEN, and until the entry exists nothing stops the releasing client from taking the
     * lock straight back ({@code docs/design/fair-handoff.md}).
     */
    @Override
    public Entry enter(LockRequest request, Runnable wake) {
        RowProtocol settled = backend.rows(request);
        HandOff handOff = request.mode() == LockMode.EXCLUSIVE ? settled.handOff : null;
        // A name met contended lately is likely busy: acquire-or-join at once, one round trip. Else
        // the plain acquire first, which costs the server less when the lock is free.
        if (handOff == null || !handOff.contended(request.name())) {
            Optional<Grant> first = backend.tryAcquire(request);
            if (first.isPresent()) {
                return Entry.granted(first.get());
            }
        }
        LineWaiter waiter = new LineWaiter(request, wake, handOff, settled.waiters(), settled.heldIn());
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

    /** Writes the waiter's entry; the grant when an exclusive acquire-or-join found the lock free. */
    private Grant join(LineWaiter waiter) {
        LockRequest request = waiter.request;
        String joinedWith = channel();
        waiters.put(request.ownerId(), waiter); // before the join: a release right after it finds it
        try {
            if (waiter.handOff != null) {
                Grant granted;
                synchronized (waiter) {
                    waiter.refreshed = System.nanoTime();
                    granted = waiter.join(joinedWith);
                }
                if (granted != null) {
                    waiters.remove(request.ownerId(), waiter);
                    return granted;
                }
            } else {
                WaiterStatements sql = waiter.shared;
                try (JdbcSession db = connections.open(false)) {
                    if (sql.joinTakesChannel()) {
                        db.update(sql.join, request.name(), request.ownerId(), joinedWith);
                    } else {
                        db.update(sql.join, request.name(), request.ownerId());
                    }
                }
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

    /** The waiter's wake-ups by name and its place in the line, left when the subscription closes. */
    private Subscription subscribe(LineWaiter waiter) {
        LockRequest request = waiter.request;
        if (waiter.handOff == null && !waiters.containsKey(request.ownerId())) {
            // A shared waiter that could not join waits unqueued.
            return notifications.supported() ? notifications.join(request, waiter.onRelease) : () -> {};
        }
        ticks.start();
        // A wake-up by name (a shared release, a listener back): shared waiters attempt, exclusive
        // ones make the line tick at once.
        Subscription byName = !notifications.supported()
                ? () -> {}
                : notifications.join(request, waiter.handOff == null ? waiter.onRelease : ticks::poke);
        WaiterStatements sql = waiter.shared;
        if (waiter.joinedWith == null && sql.registerChannel != null && channel() != null) {
            registerChannel(request, sql);
        }
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

    /** The listener came up while the entry was written: releases NOTIFY this client from now on. */
    private void registerChannel(LockRequest request, WaiterStatements sql) {
        try (JdbcSession db = connections.open(false)) {
            db.update(sql.registerChannel, channel(), request.name(), request.ownerId());
        } catch (SQLException | RuntimeException e) {
            log.debug(
                    "Baton lock '{}' on {}: recording the listener's channel failed, the tick sees releases: {}",
                    request.name(),
                    backend.name(),
                    e.toString());
        }
    }

    /**
     * An attempt of the core: the grant a release handed to its owner id (without asking the
     * database), "busy" while it is in line with nothing handed, or else {@code attempt}'s answer, a
     * grant of which the line is told. A handed grant counts from the hand-off on the database's
     * clock ({@link DatabaseClock}), not from this attempt, which may come long after it (the client
     * was stopped): one whose lease ran out is not handed out.
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
                    ticks.poke();
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

    /** A release on this backend committed a hand-off to {@code grant}'s owner: wake it if it waits here. */
    public void handedHere(Grant grant) {
        LineWaiter waiter = waiters.get(grant.ownerId());
        if (waiter != null && !waiter.ended && grant.name().equals(waiter.request.name())) {
            waiter.mayBeInLine = false; // the hand-off deleted the entry
            waiter.hand(HandOff.grant(
                    waiter.request, grant.fencingToken(), grant.expiresAt().toEpochMilli()));
        }
    }

    /** A grant NOTIFYed by a release: {@code owner token expiry-ms}. */
    private void handed(String payload) {
        int second = payload.lastIndexOf(' ');
        int first = payload.lastIndexOf(' ', second - 1);
        if (first <= 0) {
            return;
        }
        LineWaiter waiter = waiters.get(payload.substring(0, first));
        if (waiter == null || waiter.handOff == null || waiter.ended) {
            return; // it ended: its end leaves, finds the entry gone and releases
        }
        waiter.mayBeInLine = false; // the hand-off deleted the entry
        waiter.hand(HandOff.grant(
                waiter.request,
                Long.parseLong(payload.substring(first + 1, second)),
                Long.parseLong(payload.substring(second + 1))));
    }

    /** Stops the thread, which closes the LISTEN connection; the entries left stop counting after the window. */
    public void close() {
        ticks.close();
    }
}
