package dev.baton.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Raw PostgreSQL baselines with no library in between: what the database itself can do. Each client
 * has its own HikariCP pool (up to 10 connections), like one application instance. A contended
 * acquire retries after a capped, jittered pause (1 ms doubling to 20 ms, the same bounds as Baton's
 * bench options), the loop every non-blocking subject uses.
 */
final class JdbcRawSubjects {
    private static final AtomicInteger POOLS = new AtomicInteger();

    private JdbcRawSubjects() {}

    /** {@code INSERT ... ON CONFLICT DO NOTHING} to take, {@code DELETE} to release: no lease, no token. */
    static LockSubject insertDelete(String url, String user, String password) {
        try (HikariDataSource setup = pool(url, user, password, 1);
                Connection c = setup.getConnection();
                Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS bench_raw_locks (lock_name VARCHAR(512) PRIMARY KEY)");
            st.execute("TRUNCATE bench_raw_locks");
        } catch (SQLException e) {
            throw new IllegalStateException("could not create the raw baseline's table: " + e, e);
        }
        return new Subject("raw insert/delete", url, user, password) {
            @Override
            LockSubject.Held tryOnce(HikariDataSource pool, String name) throws SQLException {
                try (Connection c = pool.getConnection();
                        PreparedStatement ps = c.prepareStatement(
                                "INSERT INTO bench_raw_locks (lock_name) VALUES (?) ON CONFLICT DO NOTHING")) {
                    ps.setString(1, name);
                    if (ps.executeUpdate() != 1) {
                        return null;
                    }
                }
                return () -> {
                    try (Connection c = pool.getConnection();
                            PreparedStatement ps =
                                    c.prepareStatement("DELETE FROM bench_raw_locks WHERE lock_name = ?")) {
                        ps.setString(1, name);
                        ps.executeUpdate();
                    } catch (SQLException e) {
                        throw new IllegalStateException("raw delete failed: " + e, e);
                    }
                };
            }
        };
    }

    /** {@code pg_try_advisory_lock} on a connection kept until {@code pg_advisory_unlock}. */
    static LockSubject advisory(String url, String user, String password) {
        return new Subject("raw pg_try_advisory_lock", url, user, password) {
            @Override
            LockSubject.Held tryOnce(HikariDataSource pool, String name) throws SQLException {
                long key = name.hashCode();
                Connection c = pool.getConnection();
                boolean keep = false;
                try (PreparedStatement ps = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
                    ps.setLong(1, key);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        if (!rs.getBoolean(1)) {
                            return null;
                        }
                    }
                    keep = true;
                } finally {
                    if (!keep) {
                        c.close();
                    }
                }
                return unlockingOn(c, "SELECT pg_advisory_unlock(?)", ps -> ps.setLong(1, key));
            }
        };
    }

    /**
     * A lock held on its pinned connection {@code c}: releasing runs {@code unlock} (bound by
     * {@code bind}) on it, then gives the connection back.
     */
    static LockSubject.Held unlockingOn(Connection c, String unlock, Binding bind) {
        return () -> {
            try (c;
                    PreparedStatement ps = c.prepareStatement(unlock)) {
                bind.bind(ps);
                ps.executeQuery().close();
            } catch (SQLException e) {
                throw new IllegalStateException("unlock failed: " + e, e);
            }
        };
    }

    /** Binds a statement's parameters. */
    interface Binding {
        void bind(PreparedStatement ps) throws SQLException;
    }

    static HikariDataSource pool(String url, String user, String password, int size) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("bench-raw-" + POOLS.incrementAndGet());
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setAutoCommit(true);
        return new HikariDataSource(config);
    }

    /** Retries {@code attempt} until it returns non-null, pausing 1 to 20 ms with jitter in between. */
    static LockSubject.Held retry(Attempt attempt) {
        long pause = TimeUnit.MILLISECONDS.toNanos(1);
        while (true) {
            LockSubject.Held held;
            try {
                held = attempt.once();
            } catch (SQLException e) {
                throw new IllegalStateException("acquire failed: " + e, e);
            }
            if (held != null) {
                return held;
            }
            long half = pause / 2;
            LockSupport.parkNanos(half + ThreadLocalRandom.current().nextLong(half + 1));
            pause = Math.min(TimeUnit.MILLISECONDS.toNanos(20), pause * 2);
        }
    }

    interface Attempt {
        LockSubject.Held once() throws SQLException;
    }

    private abstract static class Subject implements LockSubject {
        private final String name;
        private final String url;
        private final String user;
        private final String password;

        Subject(String name, String url, String user, String password) {
            this.name = name;
            this.url = url;
            this.user = user;
            this.password = password;
        }

        abstract LockSubject.Held tryOnce(HikariDataSource pool, String name) throws SQLException;

        @Override
        public String name() {
            return name;
        }

        @Override
        public Client newClient() {
            HikariDataSource pool = pool(url, user, password, 10);
            return new Client() {
                @Override
                public Held acquire(String lockName) {
                    return retry(() -> tryOnce(pool, lockName));
                }

                @Override
                public void close() {
                    pool.close();
                }
            };
        }
    }
}
