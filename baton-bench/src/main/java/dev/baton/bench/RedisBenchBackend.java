package dev.baton.bench;

import dev.baton.LockOptions;
import dev.baton.servers.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redis: Baton, Redisson's {@code RLock} and a raw Lettuce baseline, all against the same embedded
 * server (or the server named by {@code --uri} / {@code BATON_REDIS_URI}). The semaphore rows:
 * Baton's semaphore and Redisson's {@code RSemaphore}.
 */
final class RedisBenchBackend implements BenchBackend {
    static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .pollInitialDelay(Duration.ofMillis(10))
            .pollMaxDelay(Duration.ofMillis(100))
            .build();

    private RedisServer server;

    @Override
    public String id() {
        return "redis";
    }

    @Override
    public List<LockSubject> start(String externalUri) {
        String uri;
        if (externalUri != null) {
            uri = externalUri;
        } else {
            server = RedisServer.start();
            uri = server.uri();
        }
        // The same lock with fair=false in its URI: one run shows barging beside fair hand-off.
        String barging = uri + (uri.contains("?") ? "&" : "?") + "fair=false";
        return List.of(
                BatonSubject.of("baton", uri, OPTIONS),
                BatonSubject.barging("baton barging", barging, OPTIONS),
                new RedissonSubject(uri),
                new RawLettuceSubject(uri));
    }

    @Override
    public PlannedSubjects plannedSubjects(boolean external) {
        return new PlannedSubjects(4, 1, 2, 1);
    }

    @Override
    public String consistencyModel() {
        return "single Redis server (asynchronous replication if any)";
    }

    @Override
    public String waiterNotification() {
        return "hand-over queue: a release wakes the next waiter only, which already owns the lock";
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }

    /**
     * Redisson's {@code RLock}: lock() and unlock() on the calling thread, default settings. Its
     * semaphore rows use {@code RSemaphore}: {@code trySetPermits} once per name and client (only the
     * first call sets the count), then {@code acquire()} and {@code release()}. An RSemaphore permit
     * has no lease: a holder that crashes loses its permit for good, where Baton's comes back when
     * its lease runs out.
     */
    static final class RedissonSubject implements LockSubject {
        private final String uri;

        RedissonSubject(String uri) {
            this.uri = uri;
        }

        @Override
        public String name() {
            return "redisson";
        }

        @Override
        public boolean hasSemaphores() {
            return true;
        }

        @Override
        public String semaphoreName() {
            return "redisson RSemaphore";
        }

        @Override
        public Client newClient() {
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            RedissonClient redisson = Redisson.create(config);
            Map<String, RSemaphore> semaphores = new ConcurrentHashMap<>();
            return new Client() {
                @Override
                public Held acquire(String lockName) {
                    RLock lock = redisson.getLock(lockName);
                    lock.lock();
                    return lock::unlock;
                }

                @Override
                public Held acquirePermit(String name, int permits) {
                    RSemaphore semaphore = semaphores.computeIfAbsent(name, n -> {
                        RSemaphore created = redisson.getSemaphore(n);
                        created.trySetPermits(permits);
                        return created;
                    });
                    try {
                        semaphore.acquire();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted while acquiring a permit of " + name, e);
                    }
                    return semaphore::release;
                }

                @Override
                public void close() {
                    redisson.shutdown(0, 2, TimeUnit.SECONDS);
                }
            };
        }
    }

    /**
     * The floor: EVALSHA of SET NX PX, then EVALSHA of compare-and-delete, on one shared Lettuce
     * connection per client; a contended acquire retries after a short pause. No renewal, no
     * fencing, no fairness, no wake-up.
     */
    static final class RawLettuceSubject implements LockSubject {
        static final String ACQUIRE =
                "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 else return 0 end";
        static final String RELEASE =
                "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
        private static final long RETRY_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

        private final String uri;

        RawLettuceSubject(String uri) {
            this.uri = uri;
        }

        @Override
        public String name() {
            return "raw lettuce";
        }

        @Override
        public Client newClient() {
            ClientResources resources = DefaultClientResources.builder()
                    .ioThreadPoolSize(2)
                    .computationThreadPoolSize(1)
                    .build();
            RedisClient client = RedisClient.create(resources, uri);
            StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
            RedisAsyncCommands<String, String> async = connection.async();
            String acquireSha = connection.sync().scriptLoad(ACQUIRE);
            String releaseSha = connection.sync().scriptLoad(RELEASE);
            return new Client() {
                @Override
                public Held acquire(String lockName) {
                    String key = "raw:" + lockName;
                    String owner = Long.toHexString(ThreadLocalRandom.current().nextLong())
                            + Long.toHexString(ThreadLocalRandom.current().nextLong());
                    String[] keys = {key};
                    while (true) {
                        Long got =
                                join(async.<Long>evalsha(acquireSha, ScriptOutputType.INTEGER, keys, owner, "30000"));
                        if (got == 1) {
                            break;
                        }
                        LockSupport.parkNanos(RETRY_PAUSE_NANOS);
                    }
                    return () -> join(async.<Long>evalsha(releaseSha, ScriptOutputType.INTEGER, keys, owner));
                }

                @Override
                public void close() {
                    connection.close();
                    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                    resources.shutdown(0, 2, TimeUnit.SECONDS);
                }
            };
        }

        private static <T> T join(io.lettuce.core.RedisFuture<T> future) {
            try {
                return future.get(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } catch (Exception e) {
                throw new IllegalStateException("raw lettuce command failed: " + e, e);
            }
        }
    }
}
