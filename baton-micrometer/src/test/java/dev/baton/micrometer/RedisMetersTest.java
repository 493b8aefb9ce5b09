package dev.baton.micrometer;

import dev.baton.servers.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The meters on one Redis server ({@code BATON_REDIS_URI} points it at an external one). */
class RedisMetersTest extends BatonMetersContract {
    private static RedisServer server;
    private static RedisClient redis;
    private static StatefulRedisConnection<String, String> outside;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
        redis = RedisClient.create(server.uri());
        outside = redis.connect();
    }

    @AfterAll
    static void stopServer() {
        outside.close();
        redis.shutdown();
        server.close();
    }

    @Override
    String uri() {
        return server.uri();
    }

    @Override
    void deleteFromOutside(String lock) {
        // The lock's key under the default prefix (names here need no encoding).
        String key = "baton:{" + lock + "}:lock";
        if (outside.sync().del(key) != 1) {
            throw new AssertionError("no key " + key);
        }
    }
}
