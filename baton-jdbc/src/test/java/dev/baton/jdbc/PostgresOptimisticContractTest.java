package dev.baton.jdbc;

import dev.baton.servers.DatabaseServer;
import dev.baton.servers.PostgresServer;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance kit on the optimistic strategy, PostgreSQL. */
class PostgresOptimisticContractTest extends LockBackendContract {
    private static DatabaseServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresServer.sharedDatabase();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    protected LockBackendFixture fixture() {
        return JdbcFixtures.of("jdbc-optimistic on PostgreSQL", () -> server, "optimistic");
    }
}
