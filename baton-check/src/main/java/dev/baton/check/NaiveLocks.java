package dev.baton.check;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * The locks the usual articles teach, written as they teach them, as subjects beside Baton's. They are
 * the checker's self-test: a run must find what is wrong with them, so that a clean result for Baton
 * cannot come from a checker that sees nothing.
 *
 * <ul>
 *   <li>{@link #insertRow}: INSERT a row to lock, DELETE it to unlock, no expiry: a crashed holder
 *       leaves the lock taken forever.
 *   <li>{@link #setNx}: SET NX PX to lock, GET then DEL to unlock with no atomic owner check: the key
 *       can expire during a pause and the late GET-then-DEL can delete the next owner's key.
 *   <li>{@link #ephemeralNode}: one fixed ephemeral znode per lock that every waiter watches: each
 *       release wakes every waiter (the herd), counted with {@link HistoryEvent.Kind#WOKEN}.
 * </ul>
 *
 * None has a fencing token (0).
 */
final class NaiveLocks {
    private static final Duration POLL = Duration.ofMillis(10);

    private NaiveLocks() {}

    /** INSERT INTO naive_locks to lock, DELETE to unlock; no expiry, no owner check. */
    static ClientSubject insertRow(String jdbcUrl) {
        return new ClientSubject() {
            private Connection connection;

            @Override
            public Optional<Hold> acquire(String lock, Duration timeout, Runnable onLost) {
                long deadline = System.nanoTime() + timeout.toNanos();
                while (true) {
                    try (PreparedStatement insert =
                            connection().prepareStatement("INSERT INTO naive_locks (name) VALUES (?)")) {
                        insert.setString(1, lock);
                        insert.executeUpdate();
                        return Optional.of(hold(() -> delete(lock)));
                    } catch (SQLException e) {
                        if (!isDuplicate(e)) {
                            reset();
                            throw new IllegalStateException("naive insert lock: " + e.getMessage(), e);
                        }
                    }
                    if (System.nanoTime() - deadline > 0) {
                        return Optional.empty();
                    }
                    pause(POLL);
                }
            }

            private void delete(String lock) {
                try (PreparedStatement delete =
                        connection().prepareStatement("DELETE FROM naive_locks WHERE name = ?")) {
                    delete.setString(1, lock);
                    delete.executeUpdate();
                } catch (SQLException e) {
                    reset();
                    throw new IllegalStateException("naive insert lock: " + e.getMessage(), e);
                }
            }

            private Connection connection() throws SQLException {
                if (connection == null) {
                    connection = DriverManager.getConnection(jdbcUrl);
                    try (Statement ddl = connection.createStatement()) {
                        ddl.execute("CREATE TABLE IF NOT EXISTS naive_locks (name VARCHAR(200) PRIMARY KEY)");
                    }
                }
                return connection;
            }

            private void reset() {
                close();
            }

            @Override
            public void close() {
                if (connection != null) {
                    try {
                        connection.close();
                    } catch (SQLException e) {
                        // the connection is broken anyway
                    }
                    connection = null;
                }
            }
        };
    }

    private static boolean isDuplicate(SQLException e) {
        return e.getSQLState() != null && e.getSQLState().startsWith("23");
    }

    /** SET key owner NX PX lease to lock; GET, compare, then DEL to unlock (two commands, not atomic). */
    static ClientSubject setNx(String redisUri, Duration leaseTime) {
        RedisURI uri = RedisURI.create(redisUri);
        uri.setTimeout(leaseTime);
        RedisClient client = RedisClient.create(uri);
        StatefulRedisConnection<String, String> connection = client.connect();
        RedisCommands<String, String> redis = connection.sync();
        return new ClientSubject() {
            @Override
            public Optional<Hold> acquire(String lock, Duration timeout, Runnable onLost) {
                String key = "naive:" + lock;
                String owner = UUID.randomUUID().toString();
                long deadline = System.nanoTime() + timeout.toNanos();
                while (!"OK".equals(redis.set(key, owner, SetArgs.Builder.nx().px(leaseTime.toMillis())))) {
                    if (System.nanoTime() - deadline > 0) {
                        return Optional.empty();
                    }
                    pause(POLL);
                }
                return Optional.of(hold(() -> {
                    if (owner.equals(redis.get(key))) {
                        redis.del(key); // the key may have expired and been taken since the GET
                    }
                }));
            }

            @Override
            public void close() {
                connection.close();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        };
    }

    /**
     * create(EPHEMERAL) of /naive/&lt;lock&gt; to lock, delete to unlock; a waiter watches that one
     * node, so every release wakes every waiter.
     */
    static ClientSubject ephemeralNode(String connectString, Duration sessionTimeout, Consumer<String> woken) {
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs((int) sessionTimeout.toMillis())
                .retryPolicy(new RetryOneTime(100))
                .build();
        curator.start();
        return new ClientSubject() {
            @Override
            public Optional<Hold> acquire(String lock, Duration timeout, Runnable onLost) {
                String path = "/naive/" + lock;
                long deadline = System.nanoTime() + timeout.toNanos();
                while (true) {
                    try {
                        curator.create()
                                .creatingParentContainersIfNeeded()
                                .withMode(CreateMode.EPHEMERAL)
                                .forPath(path);
                        return Optional.of(hold(() -> {
                            try {
                                curator.delete().forPath(path);
                            } catch (Exception e) {
                                throw new IllegalStateException("naive znode lock: " + e, e);
                            }
                        }));
                    } catch (KeeperException.NodeExistsException e) {
                        CountDownLatch changed = new CountDownLatch(1);
                        try {
                            if (curator.checkExists()
                                            .usingWatcher((org.apache.zookeeper.Watcher) event -> {
                                                woken.accept(lock);
                                                changed.countDown();
                                            })
                                            .forPath(path)
                                    == null) {
                                continue;
                            }
                            long remaining = deadline - System.nanoTime();
                            if (remaining <= 0 || !changed.await(remaining, TimeUnit.NANOSECONDS)) {
                                return Optional.empty();
                            }
                        } catch (InterruptedException interrupted) {
                            Thread.currentThread().interrupt();
                            return Optional.empty();
                        } catch (Exception other) {
                            throw new IllegalStateException("naive znode lock: " + other, other);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException("naive znode lock: " + e, e);
                    }
                }
            }

            @Override
            public void close() {
                curator.close();
            }
        };
    }

    private static ClientSubject.Hold hold(Runnable release) {
        return ClientSubject.Hold.unfenced(release);
    }

    /** A waiter's poll pause: these locks have no notification to wait on. */
    private static void pause(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
