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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** The {@code advisory} strategy on MariaDB: a named lock on the grant's pinned session (docs/backends/jdbc.md). */
final class MariaDbNamedLockStatements extends PinnedStatements {
    /** Renews: any statement resets the session's idle clock; this one also proves the lock is its. ? = name. */
    private static final String IS_HELD = "SELECT IS_USED_LOCK(?) = CONNECTION_ID()";

    /** What release must know: the server-side name and the session's wait_timeout before the grant. */
    private record Held(String serverName, long waitTimeoutBefore) {}

    private final String fencing;
    /** Counts the name's grants and records the holder; LAST_INSERT_ID(expr) remembers the new token. */
    private final String upsertToken;
    /** The holders; the server does not show who waits in {@code GET_LOCK}. */
    private final String list;
    /** The namespace of server-side lock names, read once the schema exists (published by the gate). */
    private String namespace;

    MariaDbNamedLockStatements(JdbcProtocol.Context context) {
        super(context);
        this.fencing = context.names().locks() + "_fencing";
        this.upsertToken =
                "INSERT INTO " + fencing + " (lock_name, fencing_token, owner_id, holder, connection_id, server_name,"
                        + " lease_ms) VALUES (?, LAST_INSERT_ID(1), ?, ?, CONNECTION_ID(), ?, ?)"
                        + " ON DUPLICATE KEY UPDATE fencing_token = LAST_INSERT_ID(fencing_token + 1),"
                        + " owner_id = VALUES(owner_id), holder = VALUES(holder), connection_id = VALUES(connection_id),"
                        + " server_name = VALUES(server_name), lease_ms = VALUES(lease_ms)";
        this.list = mariaDbHolders(fencing, "'X'", "h.server_name");
    }

    @Override
    public Map<String, String> probes() {
        return Map.of(fencing, JdbcSchema.probe(fencing));
    }

    @Override
    public void prepare(JdbcSession db) throws SQLException {
        String table = context.names().locks();
        namespace = table.contains(".")
                ? table
                : db.first("SELECT DATABASE()", rs -> rs.getString(1)).orElse("") + "." + table;
    }

    @Override
    Optional<Taken> take(JdbcSession db, LockRequest request, long waitMillis) throws SQLException {
        String serverName = AdvisoryKeys.serverName(namespace, request.name());
        String sql =
                String.format(Locale.ROOT, "SELECT GET_LOCK(?, %.3f), @@session.wait_timeout", waitMillis / 1000.0);
        JdbcSession.Rows<long[]> attempt = rs -> {
            int status = rs.getInt(1);
            return rs.wasNull() ? null : new long[] {status, rs.getLong(2)};
        };
        Optional<long[]> got =
                waitMillis == 0 ? db.first(sql, attempt, serverName) : db.firstWaiting(sql, attempt, serverName);
        if (got.isEmpty()) {
            throw new SQLException("GET_LOCK returned NULL (the statement was killed)", "70100");
        }
        if (got.get()[0] != 1) {
            return Optional.empty();
        }
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        setWaitTimeout(db, JdbcTime.waitTimeoutSeconds(lease));
        db.update(upsertToken, request.name(), request.ownerId(), request.holder(), serverName, lease);
        long token = db.first("SELECT LAST_INSERT_ID()", rs -> rs.getLong(1)).orElseThrow();
        return Optional.of(new Taken(token, JdbcTime.expiry(lease), new Held(serverName, got.get()[1])));
    }

    @Override
    void undo(JdbcSession db, LockRequest request, Taken taken) throws SQLException {
        releaseOn(db, null, taken.state());
    }

    @Override
    Optional<Instant> renewOn(JdbcSession db, Grant grant, Object state, long leaseMillis) throws SQLException {
        boolean held = db.first(IS_HELD, rs -> rs.getInt(1) == 1, ((Held) state).serverName())
                .orElse(false);
        return held ? Optional.of(JdbcTime.expiry(leaseMillis)) : Optional.empty();
    }

    @Override
    boolean releaseOn(JdbcSession db, Grant grant, Object state) throws SQLException {
        Held held = (Held) state;
        boolean released = db.first("SELECT RELEASE_LOCK(?)", rs -> rs.getInt(1) == 1, held.serverName())
                .orElse(false);
        setWaitTimeout(db, held.waitTimeoutBefore());
        return released;
    }

    @Override
    List<Holding> holders(String what) {
        return read(what, list, PinnedStatements::holding);
    }

    /** The killed connection lets its locks go as it ends, shortly after KILL returns. */
    @Override
    void ended(JdbcSession db, String name, Holding holding) throws SQLException {
        awaitNone(
                db,
                name,
                holding.session(),
                "still holds the lock after KILL CONNECTION",
                "SELECT COUNT(*) FROM " + fencing + " WHERE lock_name = ? AND IS_USED_LOCK(server_name) = ?",
                name,
                holding.session());
    }
}
