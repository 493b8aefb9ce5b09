package dev.baton.jdbc;

import dev.baton.LockMode;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Every statement of the pessimistic protocol ({@link PessimisticProtocol}) for PostgreSQL or
 * MariaDB, over the row table {@code <table>_pess} and the sequence {@code <table>_pess_seq}. The
 * comment above each lists its parameters; null where the dialect has no such statement.
 */
final class PessimisticStatements {
    private final Dialect dialect;
    private final String rows;

    /** Inserts a name's row, once (committed at once); ? = name. */
    final String insertRow;
    /** Draws the token; on PostgreSQL also bounds the idle transaction. ? = idle millis (PostgreSQL). */
    final String drawToken;
    /** PostgreSQL: bounds the next lock wait, for this transaction; ? = millis. Null on MariaDB. */
    final String lockTimeout;
    /** PostgreSQL: bounds the idle transaction again (renew); ? = idle millis. Null on MariaDB. */
    final String idleBound;
    /** MariaDB: restores the session's idle bound before the connection goes back. Null on PostgreSQL. */
    final String restoreIdle;

    final Map<String, String> probes = new LinkedHashMap<>();
    /** MariaDB: grants record themselves in the holders table; the token draw then takes parameters. */
    final boolean recordsHolders;
    /**
     * MariaDB: the live holders: (name, mode, owner, token, expiry, holder, connection id); null on
     * PostgreSQL. The expiry is when the idle session would end: the lease less its idle time.
     */
    final String list;

    PessimisticStatements(Dialect dialect, TableNames names) {
        this.dialect = dialect;
        this.rows = names.locks() + "_pess";
        String sequence = names.locks() + "_pess_seq";
        insertRow = dialect.insertIfAbsent("INSERT INTO " + rows + " (lock_name) VALUES (?)", "lock_name");
        probes.put(rows, JdbcSchema.probe(rows));
        probes.put(sequence, JdbcSchema.probe(sequence));
        if (dialect == Dialect.POSTGRESQL) {
            // The token also goes into application_name, for operators ({@link PessimisticHolders});
            // the rollback that releases the lock restores both settings.
            drawToken = "SELECT t.v, set_config('idle_in_transaction_session_timeout', ?, false),"
                    + " set_config('application_name', 'baton ' || t.v, false) FROM (SELECT nextval('" + sequence
                    + "') AS v) t";
            lockTimeout = "SELECT set_config('lock_timeout', ?, true)";
            idleBound = "SELECT set_config('idle_in_transaction_session_timeout', ?, false)";
            restoreIdle = null;
            recordsHolders = false;
            list = null;
        } else {
            String holders = names.locks() + "_pess_holders";
            probes.put(holders, JdbcSchema.probe(holders));
            recordsHolders = true;
            lockTimeout = null;
            idleBound = null;
            // One statement, as before: draws the token, records the holder where other sessions see
            // it at once (a MEMORY table), and takes the connection's marker lock, which says the
            // row is live. ? = name, mode, owner, holder, lease millis.
            drawToken = "REPLACE INTO " + holders + " (connection_id, lock_name, lock_mode, owner_id, holder,"
                    + " lease_ms, fencing_token, marked) VALUES (CONNECTION_ID(), ?, ?, ?, ?, ?, NEXT VALUE FOR "
                    + sequence + ", GET_LOCK(" + MARKER + ", 0)) RETURNING fencing_token";
            // The release gives the marker back in the statement that restores the idle bound.
            restoreIdle =
                    "SET SESSION wait_timeout = @@GLOBAL.wait_timeout + 0 * COALESCE(RELEASE_LOCK(" + MARKER + "), 0)";
            list = "SELECT h.lock_name, h.lock_mode, h.owner_id, h.fencing_token,"
                    + " TIMESTAMPADD(MICROSECOND, (h.lease_ms - COALESCE(p.TIME_MS, 0)) * 1000, UTC_TIMESTAMP(6)),"
                    + " h.holder, h.connection_id FROM " + holders + " h"
                    + " LEFT JOIN information_schema.PROCESSLIST p ON p.ID = h.connection_id"
                    + " WHERE IS_USED_LOCK(CONCAT('baton-pess#', h.connection_id)) = h.connection_id"
                    + " ORDER BY h.lock_name, h.lock_mode, h.fencing_token";
        }
    }

    /** MariaDB: the named lock that marks a connection's holder row live. */
    private static final String MARKER = "CONCAT('baton-pess#', CONNECTION_ID())";

    /**
     * Locks the row; {@code waitMillis} 0 = NOWAIT, negative = one slice of an unlimited wait ({@link
     * StatementWait#SLICE_MILLIS}). ? = name.
     */
    String lockRow(LockMode mode, long waitMillis) {
        boolean shared = mode == LockMode.SHARED;
        if (dialect == Dialect.POSTGRESQL) {
            // The wait is bounded by lockTimeout, set before.
            return "SELECT 1 FROM " + rows + " WHERE lock_name = ? " + (shared ? "FOR SHARE" : "FOR UPDATE")
                    + (waitMillis == 0 ? " NOWAIT" : "");
        }
        String select =
                "SELECT 1 FROM " + rows + " WHERE lock_name = ? " + (shared ? "LOCK IN SHARE MODE" : "FOR UPDATE");
        if (waitMillis == 0) {
            return select + " NOWAIT";
        }
        if (waitMillis < 0) {
            // A slice of an unlimited wait: innodb_lock_wait_timeout (error 1205) leaves the
            // connection usable for the next slice.
            return "SET STATEMENT innodb_lock_wait_timeout = " + StatementWait.SLICE_MILLIS / 1000 + " FOR " + select;
        }
        // A timed wait: max_statement_time has microsecond resolution, innodb_lock_wait_timeout only
        // whole seconds.
        return String.format(
                Locale.ROOT,
                "SET STATEMENT max_statement_time = %.3f, innodb_lock_wait_timeout = %d FOR %s",
                waitMillis / 1000.0,
                Math.max(1, (waitMillis + 999) / 1000 + 1),
                select);
    }

    /** MariaDB: bounds the idle session to the lease (whole seconds). */
    String waitTimeout(long leaseMillis) {
        return "SET SESSION wait_timeout = " + JdbcTime.waitTimeoutSeconds(leaseMillis);
    }
}
