package dev.baton.jdbc;

import dev.baton.spi.Grant;
import dev.baton.spi.LockMode;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Fair hand-off of exclusive grants on PostgreSQL, for the table and optimistic strategies (the SQL
 * is theirs, {@link WaiterStatements.HandOffSql}; the design and its safety argument are in
 * baton-bench/FAIR-HANDOFF.md). The release itself writes the head of the line as the new owner,
 * with a new fencing token and its expiry on the database clock, deletes its entry and NOTIFYs its
 * client with the grant ({@link HandOverQueue} takes it from there): a contended grant costs no
 * round trip after the release and no polling tick.
 *
 * <ul>
 *   <li>Uncontended: acquire and release are one statement each, as cheap as barging; the lock row's
 *       {@code queued} count says whether anyone may be in line, so nobody waiting costs no read of
 *       the waiters table.
 *   <li>A name this client met contended within the last second (it waited for it, or handed it on)
 *       is released with the hand-off statement at once, not after a plain release that finds
 *       someone in line.
 *   <li>A hand-off release that meets a join committed after its snapshot writes nothing and runs
 *       again.
 * </ul>
 */
final class HandOff {
    /** How long a name counts as contended after this client last waited for it or handed it on. */
    private static final long CONTENDED_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Above this many names the expired ones are dropped from the contended map. */
    private static final int CONTENDED_BOUND = 4_096;
    /** A release that keeps meeting joins gives up after this many runs (the lease frees it). */
    private static final int RELEASE_RUNS = 50;

    /** What acquire-or-join did: granted (with the grant), in line, or raced by a release (try again). */
    enum Outcome {
        GRANTED,
        QUEUED,
        RACED
    }

    record Joined(Outcome outcome, Grant grant) {}

    /** The waiter's fallback tick: whether it owns the lock (then its grant), whether it is free, in line. */
    record Tick(Grant owned, boolean free, boolean inLine) {}

    private final WaiterStatements.HandOffSql sql;
    private final JdbcConnections connections;
    private final TableNames names;
    private final JdbcProtocol.Context context;
    private final Map<String, Long> contendedUntil = new ConcurrentHashMap<>();

    HandOff(WaiterStatements.HandOffSql sql, JdbcProtocol.Context context) {
        this.sql = sql;
        this.context = context;
        this.connections = context.connections();
        this.names = context.names();
    }

    /** The columns that tables of the previous version lack ({@link JdbcSchema#upgrade}). */
    Map<String, String> upgrades() {
        return sql.upgrades();
    }

    /** The plain acquire; empty when busy or when it met a concurrent transaction. */
    Optional<Grant> tryAcquire(LockRequest request) {
        try {
            return acquire(request);
        } catch (SQLException e) {
            if (JdbcFailures.isConflict(e)) {
                return Optional.empty(); // busy now: the core polls again
            }
            throw context.failure(request.name(), "acquire", e);
        }
    }

    /** Releases by owner id, handing the lock to the head of the line if anyone is in it. */
    boolean release(String name, String owner) {
        try {
            return handOn(name, owner);
        } catch (SQLException e) {
            throw context.failure(name, "release", e);
        }
    }

    /** The plain acquire: one statement that grants when the lock is free and nobody is ahead. */
    private Optional<Grant> acquire(LockRequest request) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.first(
                    sql.acquire().text(),
                    rs -> grant(request, rs.getLong(2), rs.getLong(3)),
                    args(sql.acquire(), request, null));
        }
    }

    /** Acquire-or-join, for a request that will wait; {@code channel} null while the listener is down. */
    Joined join(LockRequest request, String channel) throws SQLException {
        markContended(request.name());
        try (JdbcSession db = connections.open(false)) {
            return db.first(
                            sql.acquireOrJoin().text(),
                            rs -> "G".equals(rs.getString(1))
                                    ? new Joined(Outcome.GRANTED, grant(request, rs.getLong(2), rs.getLong(3)))
                                    : new Joined(Outcome.QUEUED, null),
                            args(sql.acquireOrJoin(), request, channel))
                    .orElse(new Joined(Outcome.RACED, null));
        } catch (SQLException e) {
            if (JdbcFailures.isConflict(e)) {
                return new Joined(Outcome.RACED, null); // e.g. a deadlock with a release: try again
            }
            throw e;
        }
    }

    /** Refreshes the waiter's entry and reads the lock. */
    Tick tick(LockRequest request) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.first(
                            sql.tick().text(),
                            rs -> new Tick(
                                    rs.getBoolean(1) ? grant(request, rs.getLong(2), rs.getLong(3)) : null,
                                    rs.getBoolean(4),
                                    rs.getLong(5) > 0),
                            args(sql.tick(), request, null))
                    .orElseThrow();
        }
    }

    /** Leaves the line: false when the entry was gone (a release handed this waiter the lock first). */
    boolean leave(String name, String owner) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.update(sql.leave().text(), name, owner) == 1;
        }
    }

    private boolean handOn(String name, String owner) throws SQLException {
        if (!contended(name)) {
            try (JdbcSession db = connections.open(false)) {
                if (db.update(sql.release().text(), name, owner) == 1) {
                    return true;
                }
            }
            markContended(name); // someone is in line, or the grant was lost (the hand-off says)
        }
        Object[] params = {name, owner};
        SqlTemplate.Named handOff = sql.handOffRelease();
        Object[] args = new Object[handOff.params().size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = params[handOff.params().get(i).equals("name") ? 0 : 1];
        }
        for (int run = 1; ; run++) {
            long[] done;
            try (JdbcSession db = connections.open(false)) {
                done = db.first(handOff.text(), rs -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)}, args)
                        .orElseThrow();
            } catch (SQLException e) {
                if (!JdbcFailures.isConflict(e) || run >= RELEASE_RUNS) {
                    throw e;
                }
                continue;
            }
            if (done[0] == 0) {
                return false; // not held by this owner any more
            }
            if (done[1] > 0) {
                markContended(name);
            }
            if (done[1] + done[2] > 0) {
                return true;
            }
            if (run >= RELEASE_RUNS) {
                throw new SQLException("the hand-off release met a join " + run + " times in a row", "40001");
            }
        }
    }

    private boolean contended(String name) {
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

    /** A grant as the database wrote it, the expiry in epoch milliseconds (rounded down). */
    static Grant grant(LockRequest request, long token, long expiresAtMillis) {
        return new Grant(
                request.name(),
                request.ownerId(),
                LockMode.EXCLUSIVE,
                token,
                Instant.ofEpochMilli(expiresAtMillis),
                null);
    }

    /** The statement's parameters by name. */
    private Object[] args(SqlTemplate.Named statement, LockRequest request, String channel) {
        List<String> params = statement.params();
        Object[] args = new Object[params.size()];
        int[] key = null;
        for (int i = 0; i < args.length; i++) {
            args[i] = switch (params.get(i)) {
                case "name" -> request.name();
                case "owner" -> request.ownerId();
                case "lease" -> JdbcTime.leaseMillis(request.leaseTime());
                case "holder" -> request.holder();
                case "channel" -> channel;
                case "key1", "key2" -> {
                    key = key != null ? key : AdvisoryKeys.grantKey(names, request.name());
                    yield params.get(i).equals("key1") ? key[0] : key[1];
                }
                default -> throw new IllegalStateException("unknown parameter " + params.get(i));
            };
        }
        return args;
    }
}
