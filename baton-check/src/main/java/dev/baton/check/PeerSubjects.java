package dev.baton.check;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.data.Stat;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The peer libraries' locks as check subjects, each set up as its documentation tells a careful user
 * to, with the check's lease time where the library has one: Redisson ({@link RedissonSubjects}),
 * Curator's {@code InterProcessMutex}, ShedLock's JDBC provider and jetcd's Lock service
 * ({@link JetcdSubject}). They run under the same faults as Baton, and write to the same fenced
 * resource with the token the library gives them (0 where it gives none).
 */
final class PeerSubjects {
    /** ShedLock does not wait: a holder-to-be polls at this pace, as the bench's ShedLock subject does. */
    private static final Duration SHEDLOCK_POLL = Duration.ofMillis(10);

    private PeerSubjects() {}

    /** {@return the subject {@code subject} connected to {@code uri}, or empty when it is no peer's} */
    static Optional<ClientSubject> create(String subject, String uri, Duration leaseTime) {
        return Optional.ofNullable(
                switch (subject) {
                    case "redisson" -> RedissonSubjects.create(uri, leaseTime, false);
                    case "redisson-fenced" -> RedissonSubjects.create(uri, leaseTime, true);
                    case "curator" -> curator(uri, leaseTime);
                    case "shedlock-jdbc" -> shedLock(uri, leaseTime);
                    case "jetcd" -> JetcdSubject.create(uri, leaseTime);
                    default -> null;
                });
    }

    /**
     * Curator's {@code InterProcessMutex} with a session timeout of the lease time. Its token is the
     * czxid of the lock's node (the zxid that created it: ZooKeeper orders every grant by it). Its
     * documentation tells the holder to treat SUSPENDED as "not certain to hold the lock" and LOST as
     * "certain it does not": either, during a hold, tells the holder.
     *
     * @param uri Baton's ZooKeeper URI, {@code zookeeper://host:port,.../root?...}
     */
    static ClientSubject curator(String uri, Duration leaseTime) {
        URI parsed = URI.create(uri);
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(parsed.getAuthority())
                .namespace("curator-check")
                .sessionTimeoutMs((int) leaseTime.toMillis())
                .connectionTimeoutMs((int) leaseTime.toMillis())
                .retryPolicy(new ExponentialBackoffRetry(20, 5))
                .build();
        AtomicReference<Runnable> current = new AtomicReference<>();
        curator.getConnectionStateListenable().addListener((client, state) -> {
            if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
                Runnable told = current.getAndSet(null);
                if (told != null) {
                    told.run();
                }
            }
        });
        curator.start();
        java.util.Map<String, Mutex> mutexes = new java.util.HashMap<>();
        return new ClientSubject() {
            @Override
            public Optional<Hold> acquire(String lock, Duration timeout, Runnable onLost) {
                Mutex mutex = mutexes.computeIfAbsent(lock, n -> new Mutex(curator, "/locks/" + n));
                try {
                    if (!mutex.acquire(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                        return Optional.empty();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                } catch (Exception e) {
                    throw new IllegalStateException("curator: acquiring " + lock + " failed: " + e, e);
                }
                LostFlag lost = new LostFlag(onLost);
                current.set(lost);
                long token = 0;
                try {
                    Stat stat = curator.checkExists().forPath(mutex.nodePath());
                    if (stat == null) {
                        lost.run(); // the node is already gone: the session expired since the grant
                    } else {
                        token = stat.getCzxid();
                    }
                } catch (Exception e) {
                    lost.run(); // the holder cannot read its node: it cannot believe it holds the lock
                }
                long czxid = token;
                return Optional.of(new Hold() {
                    @Override
                    public long token() {
                        return czxid;
                    }

                    @Override
                    public boolean knownLost() {
                        return lost.told;
                    }

                    @Override
                    public void release() {
                        current.compareAndSet(lost, null);
                        try {
                            mutex.release();
                        } catch (Exception e) {
                            // the node went with the session, or ZooKeeper is unreachable: it goes with the session
                        }
                    }
                });
            }

            @Override
            public void close() {
                curator.close();
            }
        };
    }

    /** An {@code InterProcessMutex} that tells its holder the path of its node (for the czxid). */
    private static final class Mutex extends InterProcessMutex {
        Mutex(CuratorFramework curator, String path) {
            super(curator, path);
        }

        String nodePath() {
            return getLockPath();
        }
    }

    /** Whether a holder was told; runs the check's onLost the first time. */
    static final class LostFlag implements Runnable {
        private final Runnable onLost;
        volatile boolean told;

        LostFlag(Runnable onLost) {
            this.onLost = onLost;
        }

        @Override
        public synchronized void run() {
            if (!told) {
                told = true;
                onLost.run();
            }
        }
    }

    /**
     * ShedLock's {@code JdbcTemplateLockProvider} with {@code usingDbTime()}, over a HikariCP pool, and
     * {@code lockAtMostFor} = the lease time. ShedLock does not wait for a lock (a taken lock returns
     * empty: the subject polls), has no fencing token and tells its holder nothing; it cannot extend
     * a lock under 30 s ({@code KeepAliveLockProvider}'s minimum), so a hold that works longer than the
     * lease outlives its lock.
     *
     * @param jdbcUrl PostgreSQL's JDBC URL with user and password (the target creates the table)
     */
    static ClientSubject shedLock(String jdbcUrl, Duration leaseTime) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(Math.max(250, leaseTime.toMillis()));
        HikariDataSource pool = new HikariDataSource(config);
        JdbcTemplateLockProvider provider =
                new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                        .withJdbcTemplate(new JdbcTemplate(pool))
                        .usingDbTime()
                        .build());
        return new ClientSubject() {
            @Override
            public Optional<Hold> acquire(String lock, Duration timeout, Runnable onLost) {
                long deadline = System.nanoTime() + timeout.toNanos();
                while (true) {
                    Optional<SimpleLock> taken =
                            provider.lock(new LockConfiguration(ClockProvider.now(), lock, leaseTime, Duration.ZERO));
                    if (taken.isPresent()) {
                        SimpleLock held = taken.get();
                        return Optional.of(Hold.unfenced(() -> {
                            try {
                                held.unlock();
                            } catch (RuntimeException e) {
                                // the database is unreachable: the lock lapses at lockAtMostFor
                            }
                        }));
                    }
                    if (System.nanoTime() - deadline > 0) {
                        return Optional.empty();
                    }
                    try {
                        Thread.sleep(SHEDLOCK_POLL.toMillis()); // ShedLock has nothing to wait on
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return Optional.empty();
                    }
                }
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }

    /** Creates ShedLock's table as its documentation gives it for PostgreSQL. */
    static void createShedLockTable(String jdbcUrl) {
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
                Statement ddl = connection.createStatement()) {
            ddl.execute("CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
                    + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
        } catch (SQLException e) {
            throw new IllegalStateException("could not create ShedLock's table: " + e, e);
        }
    }
}
