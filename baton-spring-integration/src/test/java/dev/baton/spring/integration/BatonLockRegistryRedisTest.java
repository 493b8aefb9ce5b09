package dev.baton.spring.integration;

import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.servers.RedisServer;
import dev.baton.testsupport.TestTime;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link BatonLockRegistry} on a real Redis server started for the suite. */
class BatonLockRegistryRedisTest extends BatonLockRegistryContract {
    private static RedisServer server;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    LockClient connect(LockOptions options) {
        return Baton.connect(server.uri(), options);
    }

    @Test
    void renewLockReportsALeaseTheBackendLost() {
        LockOptions shortLease = LockOptions.builder().leaseTime(ofSeconds(1)).build();
        try (LockClient client = Baton.connect(server.uri(), shortLease)) {
            BatonLockRegistry registry = new BatonLockRegistry(client);
            Lock lock = registry.obtain(key);
            lock.lock();
            try {
                registry.renewLock(key);
                flushAll(); // Redis forgets every lock: the holder's next renewal is refused
                await().atMost(TestTime.grant())
                        .pollInSameThread() // renewLock belongs to the holder's thread
                        .untilAsserted(() -> assertThatThrownBy(() -> registry.renewLock(key))
                                .isInstanceOf(IllegalMonitorStateException.class)
                                .hasMessageContaining(key)
                                .hasMessageContaining("lease was lost"));
            } finally {
                lock.unlock(); // a lost lock's unlock logs, it does not throw
            }
            assertThat(((DistributedLock) lock).holdCount()).isZero();
        }
    }

    private static void flushAll() {
        RedisClient raw = RedisClient.create(server.uri());
        try (StatefulRedisConnection<String, String> connection = raw.connect()) {
            connection.sync().flushall();
        } finally {
            raw.shutdown();
        }
    }
}
