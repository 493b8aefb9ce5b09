package dev.baton.jdbc.row;

import dev.baton.LockMode;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Fair hand-off of exclusive grants (docs/design/fair-handoff.md). A name nobody waits for costs the
 * plain release, which the row's {@code queued} count refuses while anyone may be in line.
 */
final class HandOff {
    private static final long CONTENDED_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int CONTENDED_BOUND = 4_096;
    private static final int RELEASE_RUNS = 50; // then the release gives up: the lease frees the lock

    /** What acquire-or-join did: granted (with the grant), in line, or raced by a release (try again). */
    enum Outcome {
        GRANTED,
        QUEUED,
        RACED
    }

    record Joined(Outcome outcome, Grant grant) {
        static final Joined QUEUED = new Joined(Outcome.QUEUED, null);
        static final Joined RACED = new Joined(Outcome.RACED, null);

        static Joined granted(Grant grant) {
            return new Joined(Outcome.GRANTED, grant);
        }
    }

    /** The waiter's poll: whether it owns the lock (then its grant), whether it is free, in line. */
    record Tick(Grant owned, boolean free, boolean inLine) {}

    /** One run of the hand-off release; neither handed nor freed: a join raced it, run again. */
    record HandedOn(boolean held, boolean handed, boolean freed, Grant heir) {
        static final HandedOn NOT_HELD = new HandedOn(false, false, false, null);
        static final HandedOn FREED = new HandedOn(true, false, true, null);
    }

    final HandOffStatements statements;
    private final JdbcProtocol.Context context;
    private final Map<String, Long> contendedUntil = new ConcurrentHashMap<>();

    HandOff(RowProtocol rows) {
        this.context = rows.context;
        this.statements = context.dialect() == Dialect.POSTGRESQL
                ? new PgHandOffStatements(context)
                : new RowHandOffStatements(rows);
    }

    /** The plain acquire; empty when busy or when it met a concurrent transaction. */
    Optional<Grant> tryAcquire(LockRequest request) {
        try {
            return statements.acquire(request);
        } catch (SQLException e) {
            if (JdbcFailures.isConflict(e)) {
                return Optional.empty(); // busy now: the core polls again
            }
            throw context.failure(request.name(), "acquire", e);
        }
    }

    boolean release(String name, String owner) {
        try {
            return handOn(name, owner);
        } catch (SQLException e) {
            throw context.failure(name, "release", e);
        }
    }

    Joined join(LockRequest request, String channel) throws SQLException {
        Joined joined;
        try {
            joined = statements.join(request, channel);
        } catch (SQLException e) {
            if (!JdbcFailures.isConflict(e)) {
                throw e;
            }
            joined = Joined.RACED; // e.g. a deadlock with a release: try again
        }
        if (joined.outcome() != Outcome.GRANTED) {
            // Not for a free lock: a blocking acquire joins at once, and its release stays plain.
            markContended(request.name());
        }
        return joined;
    }

    private boolean handOn(String name, String owner) throws SQLException {
        if (!contended(name)) {
            if (statements.release(name, owner)) {
                return true;
            }
            markContended(name); // someone is in line, or the grant was lost (the hand-off says)
        }
        for (int run = 1; ; run++) {
            HandedOn done;
            try {
                done = statements.handOn(name, owner);
            } catch (SQLException e) {
                if (!JdbcFailures.isConflict(e) || run >= RELEASE_RUNS) {
                    throw e;
                }
                continue;
            }
            if (!done.held()) {
                return false; // not held by this owner any more
            }
            if (done.handed()) {
                markContended(name);
                if (done.heir() != null) {
                    context.heirs().accept(done.heir()); // committed: an heir elsewhere polls for it
                }
            }
            if (done.handed() || done.freed()) {
                return true;
            }
            if (run >= RELEASE_RUNS) {
                throw new SQLException("the hand-off release met a join " + run + " times in a row", "40001");
            }
        }
    }

    /** Whether this client waited for the name, or handed it on, within the last second. */
    boolean contended(String name) {
        Long until = contendedUntil.get(name);
        return until != null && until - System.nanoTime() > 0;
    }

    private void markContended(String name) {
        long now = System.nanoTime();
        if (contendedUntil.size() > CONTENDED_BOUND) {
            contendedUntil.values().removeIf(until -> until - now <= 0);
        }
        contendedUntil.put(name, now + CONTENDED_NANOS);
    }

    /** An exclusive grant as the database wrote it. */
    static Grant grant(String name, String owner, long token, Instant expiresAt) {
        return Grant.builder(name, owner, LockMode.EXCLUSIVE)
                .fencingToken(token)
                .expiresAt(expiresAt)
                .build();
    }

    /** The same, the expiry in epoch milliseconds (rounded down). */
    static Grant grant(LockRequest request, long token, long expiresAtMillis) {
        return grant(request.name(), request.ownerId(), token, Instant.ofEpochMilli(expiresAtMillis));
    }
}
