package dev.baton.shedlock;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.servers.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link BatonLockProvider} on a real Redis server started for the suite. */
class BatonLockProviderRedisTest extends BatonLockProviderContract {
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
