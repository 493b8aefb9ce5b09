package dev.baton.spring.integration;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.servers.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

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
    LockClient connect() {
        return Baton.connect(server.uri());
    }
}
