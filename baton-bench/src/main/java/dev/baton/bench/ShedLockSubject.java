package dev.baton.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * ShedLock's {@code JdbcTemplateLockProvider} with {@code usingDbTime()} on PostgreSQL, as its
 * documentation sets it up. ShedLock does not wait for a lock: a contended {@code lock()} returns
 * empty, so this subject retries with the same capped, jittered pause as the raw baselines. Each
 * client has its own HikariCP pool (up to 10 connections).
 */
final class ShedLockSubject implements LockSubject {
    private static final Duration LOCK_AT_MOST_FOR = Duration.ofSeconds(30);
    private final String url;
    private final String user;
    private final String password;

    ShedLockSubject(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
        try (HikariDataSource setup = JdbcRawSubjects.pool(url, user, password, 1);
                Connection c = setup.getConnection();
                Statement st = c.createStatement()) {
            // ShedLock's documented PostgreSQL table (the name column widened for long bench names).
            st.execute("CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(512) NOT NULL, lock_until TIMESTAMP NOT NULL,"
                    + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
        } catch (SQLException e) {
            throw new IllegalStateException("could not create ShedLock's table: " + e, e);
        }
    }

    @Override
    public String name() {
        return "shedlock jdbc-template (db time)";
    }

    @Override
    public Client newClient() {
        HikariDataSource pool = JdbcRawSubjects.pool(url, user, password, 10);
        JdbcTemplateLockProvider provider =
                new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                        .withJdbcTemplate(new JdbcTemplate(pool))
                        .usingDbTime()
                        .build());
        return new Client() {
            @Override
            public Held acquire(String lockName) {
                return JdbcRawSubjects.retry(() -> {
                    Optional<SimpleLock> lock = provider.lock(
                            new LockConfiguration(ClockProvider.now(), lockName, LOCK_AT_MOST_FOR, Duration.ZERO));
                    return lock.<Held>map(held -> held::unlock).orElse(null);
                });
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }
}
