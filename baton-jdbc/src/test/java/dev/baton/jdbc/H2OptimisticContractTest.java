package dev.baton.jdbc;

import dev.baton.servers.H2Server;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance kit on the optimistic strategy, H2 reached over its TCP server. */
class H2OptimisticContractTest extends LockBackendContract {
    private static H2Server server;

    @BeforeAll
    static void startServer() {
        server = H2Server.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    protected LockBackendFixture fixture() {
        return JdbcFixtures.of("jdbc-optimistic on H2", () -> server, "optimistic");
    }
}
