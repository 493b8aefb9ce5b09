package dev.baton.jdbc.row;

import dev.baton.LockMode;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.spi.Grant;
import java.sql.SQLException;

/**
 * MariaDB's hand-off release ({@link RowHandOffStatements#handOn}) in one round trip: the same
 * transaction (lock the row, lock the live head of the line, hand the row to it or free it, delete
 * its entry) sent as one multi-statement query, session variables carrying the locked row and the
 * head from statement to statement. It needs {@code allowMultiQueries}, which the pools Baton builds
 * set; on an application's DataSource without it the server answers a syntax error once, and the
 * release keeps the transaction of single statements from then on.
 */
final class MariaDbHandOn {
    /** MariaDB's "syntax error": multi-statement queries are not allowed on this connection. */
    private static final int SYNTAX_ERROR = 1064;

    private final String sql;
    private volatile boolean unavailable;

    MariaDbHandOn(String locks, String waiters) {
        String now = "UTC_TIMESTAMP(6)";
        this.sql = String.join(
                ";\n",
                "START TRANSACTION",
                "SET @baton_q = NULL, @baton_v = NULL, @baton_h = NULL, @baton_l = NULL, @baton_d = NULL",
                "SELECT queued, version INTO @baton_q, @baton_v FROM " + locks
                        + " WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X' FOR UPDATE",
                "SELECT owner_id, lease_ms" + ", holder" + " INTO @baton_h, @baton_l"
                        + ", @baton_d" + " FROM " + waiters
                        + " WHERE @baton_q > 0 AND lock_name = ? AND owner_id <> ? AND lease_ms IS NOT NULL"
                        + " AND last_seen > TIMESTAMPADD(MICROSECOND, ? * 1000, " + now + ")"
                        + " ORDER BY place, owner_id LIMIT 1 FOR UPDATE",
                "UPDATE " + locks + " SET version = version + 1, owner_id = @baton_h,"
                        + " expires_at = TIMESTAMPADD(MICROSECOND, @baton_l * 1000, " + now + "),"
                        + " queued = GREATEST(queued - 1, 0)" + ", holder = @baton_d"
                        + " WHERE @baton_h IS NOT NULL AND lock_name = ? AND owner_id = ? AND lock_mode = 'X'",
                "UPDATE " + locks + " SET version = version + 1, lock_mode = '-', owner_id = '', expires_at = " + now
                        + ", queued = 0 WHERE @baton_h IS NULL AND lock_name = ? AND owner_id = ? AND lock_mode = 'X'",
                "DELETE FROM " + waiters + " WHERE @baton_h IS NOT NULL AND lock_name = ? AND owner_id = @baton_h",
                "COMMIT",
                "SELECT @baton_q IS NOT NULL, @baton_h, @baton_v + 1, @baton_l");
    }

    /** The hand-off release, or null when multi-statement queries are not available here. */
    HandOff.HandedOn run(JdbcConnections connections, String name, String owner) throws SQLException {
        if (unavailable) {
            return null;
        }
        try (JdbcSession db = connections.open(false)) {
            try {
                return db.last(
                                sql,
                                rs -> {
                                    if (!rs.getBoolean(1)) {
                                        return HandOff.HandedOn.NOT_HELD;
                                    }
                                    String heir = rs.getString(2);
                                    if (heir == null) {
                                        return HandOff.HandedOn.FREED;
                                    }
                                    return new HandOff.HandedOn(
                                            true,
                                            true,
                                            false,
                                            Grant.builder(name, heir, LockMode.EXCLUSIVE)
                                                    .fencingToken(rs.getLong(3))
                                                    .expiresAt(JdbcTime.expiry(rs.getLong(4)))
                                                    .build());
                                },
                                name,
                                owner,
                                name,
                                owner,
                                -JdbcLine.WINDOW_MILLIS,
                                name,
                                owner,
                                name,
                                owner,
                                name)
                        .orElseThrow(() -> new SQLException("the hand-off release returned no row", "40001"));
            } catch (SQLException e) {
                if (e.getErrorCode() == SYNTAX_ERROR) {
                    unavailable = true;
                    return null;
                }
                rollback(db);
                throw e;
            }
        }
    }

    /** A statement failed inside the transaction: end it before the connection goes back to the pool. */
    private static void rollback(JdbcSession db) {
        try {
            db.update("ROLLBACK");
        } catch (SQLException e) {
            db.noted(new SQLException("could not end the hand-off's transaction", "08003", e));
        }
    }
}
