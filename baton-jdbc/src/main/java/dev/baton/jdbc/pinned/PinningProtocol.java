package dev.baton.jdbc.pinned;

import dev.baton.LockMode;
import dev.baton.LockUnavailableException;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol of the strategies whose grant holds a connection (PostgreSQL's advisory locks,
 * MariaDB's named locks, the pessimistic row lock), one template for all: a session of its own for
 * each attempt; the try; the wait in the database's own queue, in bounded slices on a helper thread
 * ({@link StatementWait}) so that an interrupt cancels it; and keep-or-discard: the grant keeps the
 * session, an attempt without one closes it (which rolls back and restores it), and a failure whose
 * state on the connection is unknown discards it, which ends the database session and what it holds.
 * Each strategy ({@link PinnedStatements}) supplies only its statements.
 */
public abstract class PinningProtocol implements JdbcProtocol {
    private static final Logger log = LoggerFactory.getLogger(PinningProtocol.class);
    /** The longest single wait statement of an unlimited wait, so that a dead server is noticed. */
    private static final long SLICE_MILLIS = 30_000;

    /** A lock taken on the session: its token, its expiry and what release must know (the key, a setting). */
    record Taken(long token, Instant expiry, Object state) {}

    /**
     * The session a grant keeps for its lease ({@link Grant#backendState()}): the lock lives in it.
     * Renew and release take turns on it; once released or found lost, both become no-ops.
     */
    static final class Pinned {
        final PinningProtocol protocol;
        final JdbcSession db;
        final Object state;

        final ReentrantLock turn = new ReentrantLock();
        /** Guarded by {@link #turn}. */
        boolean done;

        Pinned(PinningProtocol protocol, JdbcSession db, Object state) {
            this.protocol = protocol;
            this.db = db;
            this.state = state;
        }
    }

    final Context context;
    private final JdbcConnections connections;

    PinningProtocol(Context context) {
        this.context = context;
        this.connections = context.connections();
    }

    /** The {@code pessimistic} strategy: a row lock in a transaction held for the lease. */
    public static PinningProtocol pessimistic(Context context) {
        return new PessimisticStatements(context);
    }

    /** The {@code advisory} strategy: PostgreSQL's advisory locks or MariaDB's named locks. */
    public static PinningProtocol advisory(Context context) {
        return context.dialect() == Dialect.MARIADB
                ? new MariaDbNamedLockStatements(context)
                : new PgAdvisoryStatements(context);
    }

    /** The protocol that took a pinned grant, which renews and releases it; null for other grants. */
    public static JdbcProtocol of(Grant grant) {
        return grant.backendState() instanceof Pinned pinned ? pinned.protocol : null;
    }

    /** Refuses a read lock on MariaDB's named locks, before any I/O: they have no shared mode. */
    public static void requireExclusive(LockRequest request, String backendName) {
        if (request.mode() == LockMode.SHARED) {
            throw new UnsupportedOperationException("Baton lock '" + request.name() + "' (read) on " + backendName
                    + ": MariaDB's named locks (GET_LOCK) have no shared mode, so read locks are not supported;"
                    + " use the pessimistic or optimistic strategy for read/write locks on MariaDB");
        }
    }

    /** Whether the lock lives in a transaction that stays open for the lease (pessimistic). */
    boolean transaction() {
        return false;
    }

    /**
     * Takes the lock, waiting in the database's own queue at most {@code waitMillis}: zero is a try
     * on the caller's thread, anything else runs on a helper thread that the template cancels. Empty
     * when the lock was not taken, nothing held.
     */
    abstract Optional<Taken> take(JdbcSession db, LockRequest request, long waitMillis) throws SQLException;

    /** Gives back what a wait took as it was being cancelled; nothing when closing the session does. */
    void undo(JdbcSession db, LockRequest request, Taken taken) throws SQLException {}

    /** Proves the session still holds the lock and bounds its idleness again: the new expiry, or empty. */
    abstract Optional<Instant> renewOn(JdbcSession db, Grant grant, Object state, long leaseMillis) throws SQLException;

    /** Gives the lock back before the session is closed: whether it was still held. */
    abstract boolean releaseOn(JdbcSession db, Grant grant, Object state) throws SQLException;

    /** A try is a wait of zero, which never blocks; an interrupt seen meanwhile fails it. */
    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        try {
            return attempt(request, 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(
                    "Baton lock '" + request.name() + "' on " + context.backendName() + ": interrupted while trying",
                    e);
        }
    }

    /**
     * The core's blocking wait ({@link dev.baton.spi.Waiting#blocking}) in the database's own queue,
     * at most {@code timeoutNanos} (negative: without limit). A grant counts from when its attempt
     * began; with less than half the lease left that way, one renewal confirms its session first, and
     * a grant whose session ended meanwhile is released, not handed out (docs/lease-validity.md).
     *
     * @throws InterruptedException if interrupted, after the wait was withdrawn
     */
    public Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        long start = System.nanoTime();
        while (true) {
            long called = System.nanoTime();
            long remaining = timeoutNanos <= 0 ? timeoutNanos : Math.max(0, timeoutNanos - (called - start));
            Optional<Grant> grant = attempt(request, remaining);
            if (grant.isEmpty()) {
                return grant;
            }
            Optional<Grant> counted = counted(request, grant.get(), called);
            if (counted.isPresent() || remaining == 0) {
                return counted;
            }
        }
    }

    /** {@code grant}, from an attempt that began at {@code calledNanos}, valid as its session guarantees. */
    private Optional<Grant> counted(LockRequest request, Grant grant, long calledNanos) {
        long lease = request.leaseTime().toNanos();
        long left = lease - (System.nanoTime() - calledNanos);
        if (left >= lease / 2) {
            return Optional.of(grant.withValidity(Duration.ofNanos(left)));
        }
        long sent = System.nanoTime();
        Optional<Grant> confirmed;
        try {
            confirmed = renew(grant, request.leaseTime());
        } catch (RuntimeException e) {
            log.debug(
                    "Baton lock '{}' on {}: confirming it failed: {}",
                    grant.name(),
                    context.backendName(),
                    e.toString());
            confirmed = Optional.empty();
        }
        if (confirmed.isPresent()) {
            long confirmedLeft = lease - (System.nanoTime() - sent);
            return Optional.of(confirmed.get().withValidity(Duration.ofNanos(Math.max(0, confirmedLeft))));
        }
        log.info(
                "Baton lock '{}' on {}: the grant (token {}) was read {} ms after the attempt began, and its"
                        + " session could not be confirmed (it may have ended meanwhile); not handed out",
                grant.name(),
                context.backendName(),
                grant.fencingToken(),
                (System.nanoTime() - calledNanos) / 1_000_000);
        try {
            release(grant);
        } catch (RuntimeException e) {
            log.debug(
                    "Baton lock '{}' on {}: releasing it failed: {}",
                    grant.name(),
                    context.backendName(),
                    e.toString());
        }
        return Optional.empty();
    }

    /** One attempt on a session of its own: the try, then (if it may wait) the wait; kept, closed or discarded. */
    private Optional<Grant> attempt(LockRequest request, long timeoutNanos) throws InterruptedException {
        JdbcSession db = open(request.name());
        boolean keep = false;
        boolean discard = false;
        try {
            // Uncontended, the try is all it takes. A transaction's wait (a row lock) goes straight to the
            // queue: a refused try would cost a rollback as well.
            Optional<Taken> taken = timeoutNanos == 0 || !transaction() ? take(db, request, 0) : Optional.empty();
            if (taken.isEmpty() && timeoutNanos != 0) {
                taken = await(db, request, timeoutNanos);
            }
            keep = taken.isPresent();
            return taken.map(
                    t -> Grant.of(request, t.token(), t.expiry()).withBackendState(new Pinned(this, db, t.state())));
        } catch (StatementWait.Interrupted e) {
            discard = !e.connectionUsable;
            throw e;
        } catch (SQLException e) {
            // The lock may have been taken before the failure: end the session so it cannot linger.
            discard = true;
            if (timeoutNanos == 0 && JdbcFailures.isConflict(e)) {
                return Optional.empty();
            }
            throw context.failure(request.name(), "acquire", e);
        } finally {
            if (discard) {
                connections.discard(db.detach());
            } else if (!keep) {
                db.close();
            }
        }
    }

    /** The wait, in slices of at most {@link #SLICE_MILLIS} when unlimited. */
    private Optional<Taken> await(JdbcSession db, LockRequest request, long timeoutNanos)
            throws SQLException, StatementWait.Interrupted {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            long remaining = deadline - System.nanoTime();
            if (timeoutNanos > 0 && remaining <= 0) {
                return Optional.empty();
            }
            long waitMillis = timeoutNanos < 0 ? SLICE_MILLIS : TimeUnit.NANOSECONDS.toMillis(remaining + 999_999);
            Optional<Taken> taken = context.waits()
                    .run(db.connection, waitMillis, request.name(), () -> take(db, request, waitMillis), got -> {
                        if (got.isPresent()) {
                            undo(db, request, got.get());
                        }
                    });
            if (taken.isPresent() || timeoutNanos > 0) {
                return taken;
            }
            if (context.closed().getAsBoolean()) {
                throw StatementWait.closedWhileWaiting(request.name(), context.backendName(), null);
            }
        }
    }

    /**
     * A session of its own for one attempt. A pending interrupt is set aside only while the pool is
     * asked (pools give up on an interrupted wait) and put back at once, for the wait to see.
     */
    private JdbcSession open(String lockName) {
        boolean interrupted = Thread.interrupted();
        try {
            return connections.open(transaction());
        } catch (SQLException e) {
            throw context.failure(lockName, "acquire", e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Empty when the session no longer holds the lock or has ended: the grant is lost and its
     * connection discarded. Any other failure is thrown, and the grant stays for the next renewal.
     */
    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        long lease = JdbcTime.leaseMillis(leaseTime);
        Pinned pinned = (Pinned) grant.backendState();
        pinned.turn.lock();
        try {
            if (pinned.done) {
                return Optional.empty();
            }
            Optional<Grant> renewed =
                    renewOn(pinned.db, grant, pinned.state, lease).map(grant::withExpiresAt);
            if (renewed.isEmpty()) {
                lose(pinned, grant, "the pinned session no longer holds it");
            }
            return renewed;
        } catch (SQLException e) {
            if (!JdbcFailures.isSessionEnded(e)) {
                throw context.failure(grant.name(), "renew", e);
            }
            lose(pinned, grant, "the pinned session broke: " + e);
            return Optional.empty();
        } finally {
            pinned.turn.unlock();
        }
    }

    private void lose(Pinned pinned, Grant grant, String why) {
        log.debug("Baton lock '{}' on {}: {}", grant.name(), context.backendName(), why);
        pinned.done = true;
        connections.discard(pinned.db.detach());
    }

    /**
     * Gives the lock back and closes the session, which rolls back and returns the connection as it
     * came. A failure discards the connection, which frees the lock whatever state it was in; it is
     * thrown unless the session had ended anyway (then the lock was not held).
     */
    @Override
    public Released release(Grant grant) {
        if (!(grant.backendState() instanceof Pinned pinned)) {
            return Released.NOT_HELD; // an abandoned attempt: acquire already ended its session
        }
        pinned.turn.lock();
        try {
            if (pinned.done) {
                return Released.NOT_HELD;
            }
            pinned.done = true;
            boolean held = releaseOn(pinned.db, grant, pinned.state);
            pinned.db.close();
            return Released.of(held);
        } catch (SQLException e) {
            connections.discard(pinned.db.detach());
            if (JdbcFailures.isSessionEnded(e)) {
                return Released.NOT_HELD;
            }
            throw context.failure(grant.name(), "release", e);
        } finally {
            pinned.turn.unlock();
        }
    }
}
