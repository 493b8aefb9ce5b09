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

/** The template of the strategies whose grant holds a connection (docs/design/jdbc.md). */
public abstract class PinningProtocol implements JdbcProtocol {
    private static final Logger log = LoggerFactory.getLogger(PinningProtocol.class);
    /** The longest single wait statement of an unlimited wait, so that a dead server is noticed. */
    private static final long SLICE_MILLIS = 30_000;

    /** A lock taken on the session; {@code state} is what release must know. */
    record Taken(long token, Instant expiry, Object state) {}

    /** The session a grant keeps for its lease; once released or found lost, renew and release are no-ops. */
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

    public static PinningProtocol pessimistic(Context context) {
        return new PessimisticStatements(context);
    }

    public static PinningProtocol advisory(Context context) {
        return context.dialect() == Dialect.MARIADB
                ? new MariaDbNamedLockStatements(context)
                : new PgAdvisoryStatements(context);
    }

    /** The protocol that renews and releases a pinned grant; null for other grants. */
    public static JdbcProtocol of(Grant grant) {
        return grant.backendState() instanceof Pinned pinned ? pinned.protocol : null;
    }

    public static void requireExclusive(LockRequest request, String backendName) {
        if (request.mode() == LockMode.SHARED) {
            throw new UnsupportedOperationException("Baton lock '" + request.name() + "' (read) on " + backendName
                    + ": MariaDB's named locks (GET_LOCK) have no shared mode, so read locks are not supported;"
                    + " use the table or pessimistic strategy for read/write locks on MariaDB");
        }
    }

    /** Whether the lock lives in a transaction that stays open for the lease (pessimistic). */
    boolean transaction() {
        return false;
    }

    /** Takes the lock, waiting at most {@code waitMillis} (zero: a try); empty when nothing is held. */
    abstract Optional<Taken> take(JdbcSession db, LockRequest request, long waitMillis) throws SQLException;

    /** Gives back what a wait took as it was being cancelled; nothing when closing the session does. */
    void undo(JdbcSession db, LockRequest request, Taken taken) throws SQLException {}

    /** Proves the session still holds the lock and bounds its idleness again: the new expiry, or empty. */
    abstract Optional<Instant> renewOn(JdbcSession db, Grant grant, Object state, long leaseMillis) throws SQLException;

    /** Gives the lock back before the session is closed: whether it was still held. */
    abstract boolean releaseOn(JdbcSession db, Grant grant, Object state) throws SQLException;

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
     * Waits at most {@code timeoutNanos} (negative: without limit); an interrupt is thrown after the wait
     * was withdrawn. A grant with less than half its lease left since its attempt began is confirmed by a
     * renewal first, or released (docs/lease-validity.md).
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

    private Optional<Grant> attempt(LockRequest request, long timeoutNanos) throws InterruptedException {
        JdbcSession db = open(request.name());
        boolean keep = false;
        boolean discard = false;
        try {
            // A row lock's wait goes straight to the queue: a refused try would cost a rollback as well.
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

    /** Sets a pending interrupt aside while the pool is asked (a pool fails on it) and puts it back for the wait. */
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

    /** Empty when the lock is lost (its connection discarded); other failures are thrown, the grant kept. */
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

    /** A failure discards the connection, freeing the lock; it is thrown unless the session had ended anyway. */
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
