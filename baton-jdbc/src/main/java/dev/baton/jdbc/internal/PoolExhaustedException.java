package dev.baton.jdbc.internal;

import java.sql.SQLTransientConnectionException;

/**
 * No connection within the operation timeout because every connection of the pool Baton built from a
 * URL was in use: the pool's limit, not the database, held the caller up. Only this failure speaks
 * of the pool's size in its message ({@link JdbcFailures#explain}).
 */
final class PoolExhaustedException extends SQLTransientConnectionException {
    private static final long serialVersionUID = 1L;

    PoolExhaustedException(String poolName, int size) {
        super("all " + size + " connections of the pool " + poolName + " were in use");
    }
}
