package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.servers.RedisServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(KitTime.TEST_TIMEOUT_SECONDS)
class RedisFencingTest {
    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        client = RedisClient.create(server.uri());
        connection = client.connect();
        redis = connection.sync();
    }

    @AfterAll
    static void stop() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        server.close();
    }

    private static String key() {
        return "fenced:" + UUID.randomUUID();
    }

    @Test
    void acceptsRisingAndEqualTokensAndRefusesLowerOnes() {
        String key = key();
        assertThat(RedisFencing.highestToken(redis, key)).isEmpty();
        assertThat(RedisFencing.guardedSet(redis, key, "a", 5)).isTrue();
        assertThat(RedisFencing.guardedSet(redis, key, "b", 7)).isTrue();
        assertThat(RedisFencing.guardedSet(redis, key, "stale", 6)).isFalse();
        assertThat(redis.hget(key, RedisFencing.VALUE_FIELD)).isEqualTo("b");
        assertThat(RedisFencing.guardedSet(redis, key, "b again", 7))
                .as("the same holder writes again")
                .isTrue();
        assertThat(redis.hget(key, RedisFencing.VALUE_FIELD)).isEqualTo("b again");
        assertThat(RedisFencing.highestToken(redis, key)).isEqualTo(OptionalLong.of(7));
        assertThat(redis.hgetall(key)).containsOnlyKeys(RedisFencing.VALUE_FIELD, RedisFencing.TOKEN_FIELD);
    }

    @Test
    void comparesLargeTokensExactly() {
        String key = key();
        long twoTo53 = 1L << 53; // 2^53 and 2^53 + 1 are the same double
        assertThat(RedisFencing.guardedSet(redis, key, "high", twoTo53 + 1)).isTrue();
        assertThat(RedisFencing.guardedSet(redis, key, "low", twoTo53)).isFalse();
        assertThat(RedisFencing.guardedSet(redis, key, "shorter", 999_999_999_999_999L))
                .isFalse();
        assertThat(RedisFencing.guardedSet(redis, key, "max", Long.MAX_VALUE)).isTrue();
        assertThat(RedisFencing.highestToken(redis, key)).isEqualTo(OptionalLong.of(Long.MAX_VALUE));
        assertThat(RedisFencing.guardedSet(redis, key, "below max", Long.MAX_VALUE - 1))
                .isFalse();
        assertThat(redis.hget(key, RedisFencing.VALUE_FIELD)).isEqualTo("max");
    }

    @Test
    void concurrentWritersWithInterleavedTokensEndWithTheHighestTokensValue() throws Exception {
        String key = key();
        int writers = 4;
        int perWriter = 50;
        List<Long> tokens = new ArrayList<>();
        for (long t = 1; t <= (long) writers * perWriter; t++) {
            tokens.add(t);
        }
        Collections.shuffle(tokens);
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                List<Long> mine = tokens.subList(w * perWriter, (w + 1) * perWriter);
                done.add(pool.submit(() -> {
                    go.await();
                    for (long token : mine) {
                        boolean accepted = RedisFencing.guardedSet(redis, key, "v" + token, token);
                        long highest = RedisFencing.highestToken(redis, key).orElseThrow();
                        if (accepted) {
                            assertThat(highest).isGreaterThanOrEqualTo(token);
                        } else {
                            assertThat(highest)
                                    .as("refused only below the highest")
                                    .isGreaterThan(token);
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> future : done) {
                // Each write a contended call on one key, as a grant is.
                Await.result(future, KitTime.bulkWork(writers * perWriter));
            }
        } finally {
            pool.shutdownNow();
        }
        long max = (long) writers * perWriter;
        assertThat(RedisFencing.highestToken(redis, key)).isEqualTo(OptionalLong.of(max));
        assertThat(redis.hget(key, RedisFencing.VALUE_FIELD)).isEqualTo("v" + max);
    }

    @Test
    void aStaleHolderIsRefusedAfterTheNextHolderWrote() {
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(2))
                .operationTimeout(KitTime.operationTimeout())
                .build();
        String key = key();
        try (LockClient locks = Baton.connect(server.uri(), options)) {
            String name = "fenced-" + UUID.randomUUID();
            Lease first = locks.lock(name).acquire(KitTime.grant());
            long staleToken = first.fencingToken();
            assertThat(RedisFencing.guardedSet(redis, key, "first", staleToken)).isTrue();
            first.close(); // as if it had expired while its holder was paused
            try (Lease second = locks.lock(name).acquire(KitTime.grant())) {
                assertThat(RedisFencing.guardedSet(redis, key, "second", second.fencingToken()))
                        .isTrue();
            }
            assertThat(RedisFencing.guardedSet(redis, key, "late write of the first", staleToken))
                    .isFalse();
            assertThat(redis.hget(key, RedisFencing.VALUE_FIELD)).isEqualTo("second");
        }
    }

    @Test
    void theScriptRunsAsIsWithEval() {
        String key = key();
        String[] keys = {key};
        Long accepted = redis.eval(RedisFencing.GUARDED_SET_SCRIPT, ScriptOutputType.INTEGER, keys, "x", "10");
        Long refused = redis.eval(RedisFencing.GUARDED_SET_SCRIPT, ScriptOutputType.INTEGER, keys, "y", "9");
        assertThat(accepted).isEqualTo(1);
        assertThat(refused).isZero();
        for (String bad : List.of("-1", "abc", "010", "1.5", "")) {
            assertThatThrownBy(
                            () -> redis.eval(RedisFencing.GUARDED_SET_SCRIPT, ScriptOutputType.INTEGER, keys, "z", bad))
                    .as("token '%s'", bad)
                    .isInstanceOf(RedisCommandExecutionException.class)
                    .hasMessageContaining("fencing token must be a decimal integer");
        }
        assertThat(redis.hget(key, RedisFencing.VALUE_FIELD)).isEqualTo("x");
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsSent() {
        assertThatThrownBy(() -> RedisFencing.guardedSet(redis, null, "v", 1))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("RedisFencing.guardedSet: key must not be null");
        assertThatThrownBy(() -> RedisFencing.guardedSet(redis, "k", null, 1))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("value must not be null");
        assertThatThrownBy(() -> RedisFencing.guardedSet(null, "k", "v", 1))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("redis must not be null");
        assertThatThrownBy(() -> RedisFencing.guardedSet(redis, "k", "v", -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be 0 or more, but was -1");
        assertThatThrownBy(() -> RedisFencing.highestToken(redis, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("key must not be null");
        assertThat(redis.exists("k")).isZero();
    }

    @Test
    void aKeyOfAnotherTypeGivesRedisWrongTypeError() {
        String key = key();
        redis.set(key, "plain string");
        assertThatThrownBy(() -> RedisFencing.guardedSet(redis, key, "v", 1))
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageContaining("WRONGTYPE");
    }
}
