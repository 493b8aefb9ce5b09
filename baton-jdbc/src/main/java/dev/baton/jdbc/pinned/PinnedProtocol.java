package dev.baton.jdbc.pinned;

import dev.baton.LockInfo;
import dev.baton.LockUnavailableException;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one template of the pinning strategies: it owns, once for all of them, borrowing a session
 * ({@link JdbcSession}) of its own for each attempt; the try; the wait in the database's own queue, in
 * bounded slices on a helper thread ({@link StatementWait}) so that an interrupt cancels it, a grant
 * that came with the cancel being undone; the refusal of a client closed while waiting; and
 * keep-or-discard: the grant keeps the session ({@link PinnedSession}), an attempt without one closes
 * it (which rolls back and restores it), and a failure whose state on the connection is unknown
 * discards it, which ends the database session and frees whatever it may hold. A try is a wait of
 * zero. The strategy ({@link PinnedStatements}) supplies only its statements.
 */
final class PinnedProtocol implements PinningProtocol {
    private final Context context;
    private final JdbcConnections connections;
    private final PinnedStatements sql;

    PinnedProtocol(Context context, PinnedStatements sql) {
        this.context = context;
        this.connections = context.connections();
        this.sql = sql;
    }

    @Override
    public Map<String, String> probes() {
        return sql.probes();
    }

    @Override
    public void prepare(JdbcSession db) throws SQLException {
        sql.prepare(db);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return sql.holders().list(prefix);
    }

    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        return sql.holders().forceRelease(name, ownerId);
    }

    /** A try is a wait of zero, which never blocks; an interrupt seen meanwhile fails it. */
    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        try {
            return acquire(request, 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(
                    "Baton lock '" + request.name() + "' on " + context.backendName() + ": interrupted while trying",
                    e);
        }
    }

    /**
     * The try and, when it was refused and {@code timeoutNanos} is not zero, the wait in slices of at
     * most {@link StatementWait#SLICE_MILLIS} (negative: without limit), so a dead server is noticed.
     */
    @Override
    public Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        JdbcSession db = open(request.name());
        boolean keep = false;
        boolean discard = false;
        try {
            // Uncontended, the try is all it takes; only a busy lock joins the queue.
            Optional<PinnedStatements.Taken> taken =
                    timeoutNanos == 0 || sql.triesFirst() ? sql.tryOn(db, request) : Optional.empty();
            if (taken.isEmpty() && timeoutNanos != 0) {
                taken = await(db, request, timeoutNanos);
            }
            keep = taken.isPresent();
            return taken.map(t -> Grant.of(request, t.token(), t.expiry())
                    .withBackendState(new PinnedSession(this, db, connections, t.state())));
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

    private Optional<PinnedStatements.Taken> await(JdbcSession db, LockRequest request, long timeoutNanos)
            throws SQLException, StatementWait.Interrupted {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            long waitMillis = StatementWait.nextWaitMillis(timeoutNanos, deadline);
            if (waitMillis == 0) {
                return Optional.empty();
            }
            Optional<PinnedStatements.Taken> taken = context.waits()
                    .run(db.connection, waitMillis, request.name(), () -> sql.waitOn(db, request, waitMillis), got -> {
                        if (got.isPresent()) {
                            sql.undo(db, request, got.get());
                        }
                    });
            if (taken.isPresent() || timeoutNanos > 0) {
                return taken;
            }
            if (context.closed().getAsBoolean()) {
                throw new LockUnavailableException("Baton lock '" + request.name() + "' on " + context.backendName()
                        + ": the client was closed while waiting; create a new client to take locks");
            }
        }
    }

    /**
     * A session of its own for one attempt. A pending interrupt is set aside only while the pool is
     * asked (pools give up on an interrupted wait) and put back at once: the session may outlive this
     * thread's call as a grant's, and the wait must see it.
     */
    private JdbcSession open(String lockName) {
        boolean interrupted = Thread.interrupted();
        try {
            return connections.open(sql.transaction());
        } catch (SQLException e) {
            throw context.failure(lockName, "acquire", e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        long lease = JdbcTime.leaseMillis(leaseTime);
        PinnedSession pinned = (PinnedSession) grant.backendState();
        return pinned.renew(
                grant,
                context.backendName(),
                db -> sql.renew(db, grant, pinned.state, lease).map(grant::withExpiresAt),
                e -> context.failure(grant.name(), "renew", e));
    }

    @Override
    public Released release(Grant grant) {
        if (!(grant.backendState() instanceof PinnedSession pinned)) {
            return Released.NOT_HELD; // an abandoned attempt: acquire already ended its session
        }
        return Released.of(pinned.release(
                db -> sql.release(db, grant, pinned.state), e -> context.failure(grant.name(), "release", e)));
    }
}
