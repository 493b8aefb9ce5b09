package dev.baton.jdbc.row;

import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.SqlTemplate;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request in the {@link JdbcLine}, exclusive ({@link #handOff} set) or shared. Its database work
 * and its end are serialized on this object, so a tick never grants to a waiter that already left.
 */
final class LineWaiter {
    private static final Logger log = LoggerFactory.getLogger(LineWaiter.class);

    final LockRequest request;
    final Runnable onRelease;
    final HandOff handOff; // null for a shared waiter
    final WaiterStatements statements;
    final String heldIn;

    /** Handed by a release (or granted by a join), not yet taken by the core. */
    final AtomicReference<Grant> handed = new AtomicReference<>();
    /** In line with nothing handed: the core's attempts are answered "busy" by the line. */
    volatile boolean queued;
    /** Must be ticked again at once: a release raced its join. */
    volatile boolean rejoin;

    volatile boolean ended;
    /** The core took the last grant, from here or from the database. */
    volatile boolean taken;
    /** The entry may be in the waiters table: a hand-off deletes it. */
    volatile boolean mayBeInLine;
    /** The tick and the wake-up may both find the same grant: it is handed once. */
    private long lastToken; // guarded by handed

    volatile long due; // when the line ticks it next (System.nanoTime)
    private volatile int polls; // ticks since it last joined
    /** The LISTEN channel its entry was written with; null while the listener was down. */
    volatile String joinedWith;

    long refreshed; // guarded by this: when its entry was last refreshed (System.nanoTime)

    LineWaiter(LockRequest request, Runnable onRelease, HandOff handOff, WaiterStatements statements, String heldIn) {
        this.request = request;
        this.onRelease = onRelease;
        this.handOff = handOff;
        this.statements = statements;
        this.heldIn = heldIn;
    }

    /** A release handed it the lock, deleting its entry. */
    void handedOn(long token, long expiresAtMillis) {
        mayBeInLine = false;
        hand(HandOff.grant(request, token, expiresAtMillis));
    }

    private void hand(Grant grant) {
        synchronized (handed) {
            if (grant.fencingToken() == lastToken) {
                return; // stored already (and perhaps taken): never hand one grant twice
            }
            lastToken = grant.fencingToken();
        }
        taken = false;
        handed.set(grant); // before queued: an attempt in between answers "busy", then wakes
        queued = false;
        onRelease.run();
    }

    boolean waits() {
        return !ended && handed.get() == null && queued;
    }

    /** Writes its entry, with {@code channel}: the grant when an exclusive waiter's join found the lock free. */
    synchronized Grant join(String channel, JdbcConnections connections) throws SQLException {
        if (handOff != null) {
            refreshed = System.nanoTime();
            return acquireOrJoin(channel);
        }
        try (JdbcSession db = connections.open(false)) {
            if (statements.joinTakesChannel()) {
                db.update(statements.join, request.name(), request.ownerId(), channel);
            } else {
                db.update(statements.join, request.name(), request.ownerId());
            }
        }
        return null;
    }

    /** The listener came up after its entry was written: releases NOTIFY this client from now on. */
    void registerChannel(String channel, JdbcConnections connections, String backendName) {
        if (joinedWith != null || statements.registerChannel == null || channel == null) {
            return;
        }
        try (JdbcSession db = connections.open(false)) {
            db.update(statements.registerChannel, channel, request.name(), request.ownerId());
        } catch (SQLException | RuntimeException e) {
            log.debug(
                    "Baton lock '{}' on {}: recording the listener's channel failed, the tick sees releases: {}",
                    request.name(),
                    backendName,
                    e.toString());
        }
    }

    private Grant acquireOrJoin(String channel) throws SQLException {
        rejoin = false;
        HandOff.Joined joined = handOff.join(request, channel);
        switch (joined.outcome()) {
            case GRANTED -> {
                return joined.grant();
            }
            case QUEUED -> {
                mayBeInLine = true;
                polls = 0;
                due = System.nanoTime() + delayNanos(channel != null);
                queued = true;
                if (handed.get() != null) {
                    queued = false; // handed in this JVM while the join returned
                }
            }
            case RACED -> {
                rejoin = true; // ticked again at once
                queued = true;
            }
        }
        return null;
    }

    /**
     * Ticks it when due, or with {@code all}; true if its join raced a release and {@code mayHurry}. It
     * reads the lock before joining again, since a raced join may have been a hand-off to this waiter.
     */
    synchronized boolean tickIfDue(boolean all, boolean mayHurry, String channel, String backendName) {
        long now = System.nanoTime();
        if (!waits() || (!all && due - now > 0)) {
            return false;
        }
        polls++;
        due = now + delayNanos(channel != null); // a join in the tick starts the backoff again
        rejoin = false;
        try {
            boolean refresh = now - refreshed >= TimeUnit.MILLISECONDS.toNanos(JdbcLine.REFRESH_MILLIS);
            HandOff.Tick tick = handOff.statements.tick(request, refresh);
            if (refresh) {
                refreshed = now;
            }
            if (tick.owned() != null) {
                mayBeInLine = false;
                hand(tick.owned());
            } else if (tick.free() || !tick.inLine()) {
                Grant granted = acquireOrJoin(channel);
                if (granted != null) {
                    hand(granted);
                }
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("Baton lock '{}' on {}: the waiter's tick failed: {}", request.name(), backendName, e.toString());
        }
        if (rejoin && mayHurry) {
            due = System.nanoTime();
            return true;
        }
        return false;
    }

    /** PostgreSQL's ticks are the fallback for a missed NOTIFY; H2's and MariaDB's back off from 1 ms. */
    private long delayNanos(boolean listening) {
        return handOff.statements.notifiesHeir()
                ? JdbcLine.tickNanos(listening)
                : TimeUnit.MILLISECONDS.toNanos(Math.min(JdbcLine.TICK_MILLIS, 1L << Math.min(polls, 5)));
    }

    /** Wakes the shared waiters whose locks are free, in one statement; with {@code refresh}, refreshes them. */
    static void checkShared(List<LineWaiter> shared, JdbcConnections connections, boolean refresh) throws SQLException {
        List<String> names =
                shared.stream().map(w -> w.request.name()).distinct().toList();
        WaiterStatements sql = shared.get(0).statements;
        try (JdbcSession db = connections.open(false)) {
            Set<String> held = db.all(
                    shared.get(0).heldIn + SqlTemplate.placeholders(names.size(), 1),
                    rs -> {
                        Set<String> found = new HashSet<>();
                        while (rs.next()) {
                            found.add(rs.getString(1));
                        }
                        return found;
                    },
                    names.toArray());
            shared.stream().filter(w -> !held.contains(w.request.name())).forEach(w -> w.onRelease.run());
            if (refresh) {
                db.update(
                        sql.refreshIn + SqlTemplate.placeholders(shared.size(), 2),
                        shared.stream()
                                .flatMap(w -> Stream.of(w.request.name(), w.request.ownerId()))
                                .toArray());
                db.update(
                        sql.purgeIn + SqlTemplate.placeholders(names.size(), 1),
                        Stream.concat(Stream.of(-JdbcLine.WINDOW_MILLIS), names.stream())
                                .toArray());
            }
        }
    }

    /**
     * The wait ended: leaves the line, then, if the entry was gone, releases what was handed but not
     * taken; the other order would miss a hand-off that committed while the release's statement waited.
     */
    synchronized void end(JdbcConnections connections) {
        ended = true;
        String name = request.name();
        String owner = request.ownerId();
        if (handOff == null) {
            try (JdbcSession db = connections.open(false)) {
                db.update(statements.leave, name, owner);
            } catch (SQLException e) {
                throw new IllegalStateException(
                        "leaving the waiters failed; the entry stops counting within " + JdbcLine.WINDOW_MILLIS + " ms",
                        e);
            }
            return;
        }
        if (taken && !mayBeInLine) {
            return; // taken from a hand-off, which deleted the entry
        }
        boolean left;
        try {
            left = handOff.statements.leave(name, owner);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "leaving the line failed; the entry stops counting within " + JdbcLine.WINDOW_MILLIS
                            + " ms, and a lock handed to it is freed when its lease expires",
                    e);
        }
        if (!left && !taken) {
            handOff.release(name, owner); // handed meanwhile: pass it on
        }
    }
}
