package dev.baton.jdbc.row;

import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.jdbc.internal.TableNames;
import dev.baton.spi.Grant;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * MariaDB's hand-off release ({@link RowHandOffStatements#handOn}) as one multi-statement query. It needs
 * {@code allowMultiQueries}, which Baton's pools set; without it the server answers a syntax error
 * once, and the release keeps the single statements from then on.
 */
final class MariaDbHandOn {
    private static final int SYNTAX_ERROR = 1064; // here: multi-statement queries are not allowed

    private final String sql;
    private volatile boolean unavailable;

    MariaDbHandOn(TableNames names) {
        String locks = names.locks();
        String waiters = names.waiters();
        String now = "UTC_TIMESTAMP(6)";
        this.sql = String.join(
                ";\n",
                "START TRANSACTION",
                "SET @baton_q = NULL, @baton_v = NULL, @baton_h = NULL, @baton_l = NULL, @baton_d = NULL",
                "SELECT queued, NEXT VALUE FOR " + names.sequence() + " INTO @baton_q, @baton_v FROM " + locks
                        + " WHERE lock_name = ? AND owner_id = ? AND lock_mode = 'X' FOR UPDATE",
                "SELECT owner_id, lease_ms, holder INTO @baton_h, @baton_l, @baton_d FROM " + waiters
                        + " WHERE @baton_q > 0 AND lock_name = ? AND owner_id <> ? AND lease_ms IS NOT NULL"
                        + " AND last_seen > TIMESTAMPADD(MICROSECOND, ? * 1000, " + now + ")"
                        + " ORDER BY place, owner_id LIMIT 1 FOR UPDATE",
                "UPDATE " + locks + " SET version = @baton_v, owner_id = @baton_h,"
                        + " expires_at = TIMESTAMPADD(MICROSECOND, @baton_l * 1000, " + now + "),"
                        + " queued = GREATEST(queued - 1, 0), holder = @baton_d"
                        + " WHERE @baton_h IS NOT NULL AND lock_name = ? AND owner_id = ? AND lock_mode = 'X'",
                "UPDATE " + locks + " SET lock_mode = '-', owner_id = '', expires_at = " + now
                        + ", queued = 0 WHERE @baton_h IS NULL AND lock_name = ? AND owner_id = ? AND lock_mode = 'X'",
                "DELETE FROM " + waiters + " WHERE @baton_h IS NOT NULL AND lock_name = ? AND owner_id = @baton_h",
                "COMMIT",
                "SELECT @baton_q IS NOT NULL, @baton_h, @baton_v, @baton_l");
    }

    /** The hand-off release, or null when multi-statement queries are not available here. */
    HandOff.HandedOn run(JdbcConnections connections, String name, String owner) throws SQLException {
        if (unavailable) {
            return null;
        }
        try (JdbcSession db = connections.open(false)) {
            try {
                Object[] params = {name, owner, name, owner, -JdbcLine.WINDOW_MILLIS, name, owner, name, owner, name};
                return db.last(sql, rs -> handedOn(rs, name), params)
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

    private static HandOff.HandedOn handedOn(ResultSet rs, String name) throws SQLException {
        String heir = rs.getString(2);
        if (!rs.getBoolean(1) || heir == null) {
            return rs.getBoolean(1) ? HandOff.HandedOn.FREED : HandOff.HandedOn.NOT_HELD;
        }
        Grant grant = HandOff.grant(name, heir, rs.getLong(3), JdbcTime.expiry(rs.getLong(4)));
        return new HandOff.HandedOn(true, true, false, grant);
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
