package dev.baton.jdbc.pinned;

import dev.baton.jdbc.internal.AdvisoryKeys;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSchema;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code advisory} strategy on MariaDB/MySQL: a named lock ({@code GET_LOCK} / {@code
 * RELEASE_LOCK}) held on the grant's pinned session.
 *
 * <ul>
 *   <li>Acquire: {@code GET_LOCK(name, 0)} for a try; a waiter calls {@code GET_LOCK(name, seconds)}
 *       and so queues inside the server ({@code KILL QUERY} cancels it). Granted: the session's
 *       {@code wait_timeout} is set to the lease (whole seconds, rounded up), so the server ends the
 *       session of a client that vanished, and the name's fencing counter in {@code <table>_fencing}
 *       is incremented ({@code LAST_INSERT_ID(expr)} returns it) while the lock is held, so tokens
 *       strictly increase per name; the same upsert records the holder ({@link MariaDbNamedLockHolders}).
 *   <li>Renew: {@code IS_USED_LOCK(name) = CONNECTION_ID()}: the session is alive and holds the lock.
 *   <li>Release: {@code RELEASE_LOCK(name)}, which only ever releases the calling session's lock;
 *       then {@code wait_timeout} is restored.
 * </ul>
 *
 * <p>Names: named locks are server-wide, compared case-insensitively and limited to 64 characters:
 * {@link AdvisoryKeys#serverName} over {@code <database>.<table>} keeps two applications apart. Read
 * locks are refused ({@link PinningProtocol#requireExclusive}): MariaDB has no shared named locks.
 */
final class MariaDbNamedLockStatements implements PinnedStatements {
    /** Renews: any statement resets the session's idle clock; this one also proves the lock is its. ? = name. */
    private static final String IS_HELD = "SELECT IS_USED_LOCK(?) = CONNECTION_ID()";
    /** ? = server-side name; 1 when this session held the lock and released it. */
    static final String RELEASE_LOCK = "SELECT RELEASE_LOCK(?)";

    /** What release must know: the server-side name and the session's wait_timeout before the grant. */
    private record Held(String serverName, long waitTimeoutBefore) {}

    private final JdbcProtocol.Context context;
    private final String fencing;
    /**
     * Counts the name's grants and records the holder and its connection; ? = name, owner, holder,
     * server-side name, lease millis. LAST_INSERT_ID(expr) makes the session remember the new token.
     */
    private final String upsertToken;

    private final MariaDbNamedLockHolders holders;
    /** The namespace of server-side lock names, read once the schema exists (published by the gate). */
    private String namespace;

    MariaDbNamedLockStatements(JdbcProtocol.Context context) {
        this.context = context;
        this.fencing = context.names().locks() + "_fencing";
        this.upsertToken =
                "INSERT INTO " + fencing + " (lock_name, fencing_token, owner_id, holder, connection_id, server_name,"
                        + " lease_ms) VALUES (?, LAST_INSERT_ID(1), ?, ?, CONNECTION_ID(), ?, ?)"
                        + " ON DUPLICATE KEY UPDATE fencing_token = LAST_INSERT_ID(fencing_token + 1),"
                        + " owner_id = VALUES(owner_id), holder = VALUES(holder), connection_id = VALUES(connection_id),"
                        + " server_name = VALUES(server_name), lease_ms = VALUES(lease_ms)";
        this.holders = new MariaDbNamedLockHolders(context, fencing);
    }

    @Override
    public Map<String, String> probes() {
        return Map.of(fencing, JdbcSchema.probe(fencing));
    }

    /** Named locks are server-wide: the database keeps two applications' tables apart. */
    @Override
    public void prepare(JdbcSession db) throws SQLException {
        String table = context.names().locks();
        namespace = table.contains(".")
                ? table
                : db.first("SELECT DATABASE()", rs -> rs.getString(1)).orElse("") + "." + table;
    }

    @Override
    public Optional<Taken> waitOn(JdbcSession db, LockRequest request, long waitMillis) throws SQLException {
        return getLock(db, request, waitMillis);
    }

    /**
     * {@code GET_LOCK(name, wait)} and the session's wait_timeout; granted, the grant's statements. A
     * wait runs without a JDBC query timeout ({@link StatementWait#first}): the server bounds it.
     */
    private Optional<Taken> getLock(JdbcSession db, LockRequest request, long waitMillis) throws SQLException {
        String serverName = AdvisoryKeys.serverName(namespace, request.name());
        String sql =
                String.format(Locale.ROOT, "SELECT GET_LOCK(?, %.3f), @@session.wait_timeout", waitMillis / 1000.0);
        JdbcSession.Rows<long[]> attempt = rs -> {
            int status = rs.getInt(1);
            return rs.wasNull() ? null : new long[] {status, rs.getLong(2)};
        };
        Optional<long[]> got = waitMillis == 0
                ? db.first(sql, attempt, serverName)
                : StatementWait.first(db.connection, sql, attempt, serverName);
        if (got.isEmpty()) {
            // GET_LOCK answers NULL when the statement was killed; the lock was not taken.
            throw new SQLException("GET_LOCK returned NULL (the statement was killed)", "70100");
        }
        if (got.get()[0] != 1) {
            return Optional.empty();
        }
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        db.update("SET SESSION wait_timeout = " + JdbcTime.waitTimeoutSeconds(lease));
        db.update(upsertToken, request.name(), request.ownerId(), request.holder(), serverName, lease);
        long token = db.first("SELECT LAST_INSERT_ID()", rs -> rs.getLong(1)).orElseThrow();
        return Optional.of(new Taken(token, JdbcTime.expiry(lease), new Held(serverName, got.get()[1])));
    }

    /** Releases a lock a cancelled wait got anyway, and restores the session's idle bound. */
    @Override
    public void undo(JdbcSession db, LockRequest request, Taken taken) throws SQLException {
        release(db, null, taken.state());
    }

    @Override
    public Optional<Instant> renew(JdbcSession db, Grant grant, Object state, long leaseMillis) throws SQLException {
        boolean held = db.first(IS_HELD, rs -> rs.getInt(1) == 1, ((Held) state).serverName())
                .orElse(false);
        return held ? Optional.of(JdbcTime.expiry(leaseMillis)) : Optional.empty();
    }

    @Override
    public boolean release(JdbcSession db, Grant grant, Object state) throws SQLException {
        Held held = (Held) state;
        boolean released = db.first(RELEASE_LOCK, rs -> rs.getInt(1) == 1, held.serverName())
                .orElse(false);
        db.update("SET SESSION wait_timeout = " + held.waitTimeoutBefore());
        return released;
    }

    @Override
    public Holders holders() {
        return holders;
    }
}
