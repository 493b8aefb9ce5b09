package dev.baton.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The floor of a fair hand-off on PostgreSQL: blocking {@code pg_advisory_lock} on a pinned
 * connection, so waiters queue in the server's lock manager, which grants the next one in line and
 * wakes only its backend when the holder unlocks. No lease, no token, no notification: what one
 * hand-off to another client costs the server and the machine at the least.
 */
final class BlockingAdvisorySubject implements LockSubject {
    private final String url;
    private final String user;
    private final String password;

    BlockingAdvisorySubject(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    @Override
    public String name() {
        return "raw pg_advisory_lock (blocking, server queue)";
    }

    @Override
    public Client newClient() {
        HikariDataSource pool = JdbcRawSubjects.pool(url, user, password, 10);
        return new Client() {
            @Override
            public Held acquire(String lockName) {
                long key = lockName.hashCode();
                try {
                    Connection c = pool.getConnection();
                    try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_lock(?)")) {
                        ps.setLong(1, key);
                        ps.executeQuery().close();
                    } catch (SQLException | RuntimeException e) {
                        c.close();
                        throw e;
                    }
                    return JdbcRawSubjects.unlockingOn(c, "SELECT pg_advisory_unlock(?)", ps -> ps.setLong(1, key));
                } catch (SQLException e) {
                    throw new IllegalStateException("lock failed: " + e, e);
                }
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }
}
