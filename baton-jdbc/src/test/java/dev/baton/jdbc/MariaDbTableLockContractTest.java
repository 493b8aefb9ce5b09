package dev.baton.jdbc;

import dev.baton.servers.DatabaseServer;
import dev.baton.servers.MariaDbServer;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance kit on the table strategy, MariaDB (a private mariadbd). */
class MariaDbTableLockContractTest extends LockBackendContract {
    private static DatabaseServer server;

    @BeforeAll
    static void startServer() {
        server = MariaDbServer.sharedDatabase();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    protected LockBackendFixture fixture() {
        return JdbcFixtures.of("jdbc-table on MariaDB", () -> server, null);
    }
}
