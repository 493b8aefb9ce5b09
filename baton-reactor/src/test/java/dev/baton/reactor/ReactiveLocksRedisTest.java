package dev.baton.reactor;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.servers.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link ReactiveLocks} on a real Redis server started for the suite: waiters stand in Redis' line. */
class ReactiveLocksRedisTest extends ReactiveLocksContract {
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
}
