package dev.baton.jdbc;

import dev.baton.servers.H2Server;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance kit on the table strategy, H2 reached over its TCP server. */
class H2TableLockContractTest extends LockBackendContract {
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
        return JdbcFixtures.of("jdbc-table on H2", () -> server, null);
    }
}
