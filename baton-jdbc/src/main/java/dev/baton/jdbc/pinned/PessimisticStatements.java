package dev.baton.jdbc.pinned;

import dev.baton.LockMode;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSchema;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code pessimistic} strategy (PostgreSQL, MariaDB): the holder locks the name's row in {@code
 * <table>_pess} with {@code SELECT ... FOR UPDATE} ({@code FOR SHARE} / {@code LOCK IN SHARE MODE}
 * for readers) in a transaction that stays open on the grant's session for the whole lease. Waiters
 * queue on the row lock inside the database, first come first served.
 *
 * <ul>
 *   <li>Acquire: lock the row ({@code NOWAIT} for a try; a wait bounded by PostgreSQL's {@code
 *       lock_timeout} or MariaDB's {@code innodb_lock_wait_timeout} / {@code max_statement_time});
 *       then, holding it, draw the fencing token from {@code <table>_pess_seq} and bound the idle
 *       transaction by the lease ({@code idle_in_transaction_session_timeout} on PostgreSQL, {@code
 *       wait_timeout} on MariaDB). A name seen for the first time gets its row inserted and committed
 *       first. A sequence is not transactional: a token drawn by a holder that was rolled back is never
 *       handed out again, so tokens strictly increase per name.
 *   <li>Renew: sets that idle bound again, which proves the session and its transaction alive.
 *   <li>Release: rollback, which ends the transaction, frees the row and (PostgreSQL) undoes the
 *       settings; MariaDB then restores {@code wait_timeout}.
 * </ul>
 *
 * <p>Operators' view: {@link PessimisticHolders}.
 */
final class PessimisticStatements implements PinnedStatements {
    /** MariaDB: the named lock that marks a connection's holder row live ({@link PessimisticHolders}). */
    static final String MARKER = "CONCAT('baton-pess#', CONNECTION_ID())";

    private final Dialect dialect;
    private final String rows;
    private final Map<String, String> probes = new LinkedHashMap<>();
    /** Inserts a name's row, once; ? = name. */
    private final String insertRow;
    /**
     * Draws the token: PostgreSQL also bounds the idle transaction and names the token in {@code
     * application_name} (? = idle millis); MariaDB also records the holder where other sessions see
     * it at once (a MEMORY table) and takes the connection's marker lock (? = name, mode, owner, holder,
     * lease millis).
     */
    private final String drawToken;

    private final PessimisticHolders holders;

    PessimisticStatements(JdbcProtocol.Context context) {
        this.dialect = context.dialect();
        this.rows = context.names().locks() + "_pess";
        String sequence = context.names().locks() + "_pess_seq";
        this.holders = new PessimisticHolders(context);
        insertRow = dialect == Dialect.POSTGRESQL
                ? "INSERT INTO " + rows + " (lock_name) VALUES (?) ON CONFLICT (lock_name) DO NOTHING"
                : "INSERT INTO " + rows + " (lock_name) VALUES (?)";
        probes.put(rows, JdbcSchema.probe(rows));
        probes.put(sequence, JdbcSchema.probe(sequence));
        if (dialect == Dialect.POSTGRESQL) {
            drawToken = "SELECT t.v, set_config('idle_in_transaction_session_timeout', ?, false),"
                    + " set_config('application_name', 'baton ' || t.v, false) FROM (SELECT nextval('" + sequence
                    + "') AS v) t";
        } else {
            probes.put(holders.table, JdbcSchema.probe(holders.table));
            drawToken = "REPLACE INTO " + holders.table + " (connection_id, lock_name, lock_mode, owner_id, holder,"
                    + " lease_ms, fencing_token, marked) VALUES (CONNECTION_ID(), ?, ?, ?, ?, ?, NEXT VALUE FOR "
                    + sequence + ", GET_LOCK(" + MARKER + ", 0)) RETURNING fencing_token";
        }
    }

    @Override
    public Map<String, String> probes() {
        return probes;
    }

    @Override
    public boolean transaction() {
        return true;
    }

    /** A wait goes straight to the row's queue: a refused try would cost a rollback as well. */
    @Override
    public boolean triesFirst() {
        return false;
    }

    @Override
    public Optional<Taken> waitOn(JdbcSession db, LockRequest request, long waitMillis) throws SQLException {
        return lock(db, request, waitMillis);
    }

    /** Locks the row (inserting it first if the name is new), then draws the token: empty if busy. */
    private Optional<Taken> lock(JdbcSession db, LockRequest request, long waitMillis) throws SQLException {
        for (boolean insertIfMissing = true; ; insertIfMissing = false) {
            boolean found;
            try {
                found = lockRow(db, request, waitMillis);
            } catch (SQLException e) {
                if (JdbcFailures.isConflict(e)) {
                    db.connection.rollback(); // busy, or the wait ran out
                    return Optional.empty();
                }
                if (dialect == Dialect.MARIADB && waitMillis > 0 && JdbcFailures.isTimeout(e)) {
                    // max_statement_time ended the wait; HikariCP takes the resulting timeout for a dead
                    // connection and closes it: nothing is held, and closing the session discards it.
                    return Optional.empty();
                }
                throw e;
            }
            if (found) {
                return Optional.of(drawToken(db, request));
            }
            db.connection.rollback();
            if (!insertIfMissing) {
                return Optional.empty();
            }
            db.insertIfAbsent(insertRow, request.name());
            db.commit();
        }
    }

    /** Whether the row exists and is now locked; a busy row fails with a conflict. */
    private boolean lockRow(JdbcSession db, LockRequest request, long waitMillis) throws SQLException {
        boolean shared = request.mode() == LockMode.SHARED;
        if (waitMillis == 0) {
            String lock = dialect == Dialect.POSTGRESQL ? (shared ? "FOR SHARE" : "FOR UPDATE") : lockClause(shared);
            return db.first(
                            "SELECT 1 FROM " + rows + " WHERE lock_name = ? " + lock + " NOWAIT",
                            rs -> true,
                            request.name())
                    .isPresent();
        }
        String select = "SELECT 1 FROM " + rows + " WHERE lock_name = ? ";
        String sql;
        if (dialect == Dialect.POSTGRESQL) {
            db.first("SELECT set_config('lock_timeout', ?, true)", rs -> true, String.valueOf(waitMillis));
            sql = select + (shared ? "FOR SHARE" : "FOR UPDATE");
        } else if (waitMillis % 1000 == 0) {
            // Whole seconds (a slice of an unlimited wait): innodb_lock_wait_timeout (error 1205) leaves
            // the connection usable for the next slice.
            sql = "SET STATEMENT innodb_lock_wait_timeout = " + waitMillis / 1000 + " FOR " + select
                    + lockClause(shared);
        } else {
            // max_statement_time has microsecond resolution, innodb_lock_wait_timeout only whole seconds.
            sql = String.format(
                    Locale.ROOT,
                    "SET STATEMENT max_statement_time = %.3f, innodb_lock_wait_timeout = %d FOR %s%s",
                    waitMillis / 1000.0,
                    (waitMillis + 999) / 1000 + 1,
                    select,
                    lockClause(shared));
        }
        return StatementWait.first(db.connection, sql, rs -> true, request.name())
                .isPresent();
    }

    private static String lockClause(boolean shared) {
        return shared ? "LOCK IN SHARE MODE" : "FOR UPDATE";
    }

    /** Holding the row: the token, and the idle bound of the transaction. */
    private Taken drawToken(JdbcSession db, LockRequest request) throws SQLException {
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        String comment = holders.comment(request, lease);
        long token;
        if (dialect == Dialect.POSTGRESQL) {
            token = db.first(comment + drawToken, rs -> rs.getLong(1), String.valueOf(JdbcTime.idleMillis(lease)))
                    .orElseThrow();
        } else {
            String mode = request.mode() == LockMode.SHARED ? "S" : "X";
            token = db.first(
                            drawToken,
                            rs -> rs.getLong(1),
                            request.name(),
                            mode,
                            request.ownerId(),
                            request.holder(),
                            lease)
                    .orElseThrow();
            setIdleBound(db, lease);
        }
        return new Taken(token, JdbcTime.expiry(lease), comment);
    }

    @Override
    public Optional<Instant> renew(JdbcSession db, Grant grant, Object state, long leaseMillis) throws SQLException {
        if (dialect == Dialect.POSTGRESQL) {
            db.first(
                    state + "SELECT set_config('idle_in_transaction_session_timeout', ?, false)",
                    rs -> true,
                    String.valueOf(JdbcTime.idleMillis(leaseMillis)));
        } else {
            setIdleBound(db, leaseMillis);
        }
        return Optional.of(JdbcTime.expiry(leaseMillis));
    }

    /**
     * MariaDB: bounds the idle session by the lease. Without a JDBC query timeout: the driver would
     * send it as {@code max_statement_time}, whose expiry HikariCP takes for a dead connection, which
     * it closes, and with it the lease.
     */
    private static void setIdleBound(JdbcSession db, long leaseMillis) throws SQLException {
        try (Statement st = db.connection.createStatement()) {
            st.execute("SET SESSION wait_timeout = " + JdbcTime.waitTimeoutSeconds(leaseMillis));
        }
    }

    /** Rolls back, which frees the row; MariaDB gives back the marker and restores its idle bound. */
    @Override
    public boolean release(JdbcSession db, Grant grant, Object state) throws SQLException {
        db.connection.rollback();
        if (dialect == Dialect.MARIADB) {
            db.update(
                    "SET SESSION wait_timeout = @@GLOBAL.wait_timeout + 0 * COALESCE(RELEASE_LOCK(" + MARKER + "), 0)");
        }
        return true;
    }

    @Override
    public Holders holders() {
        return holders;
    }
}
