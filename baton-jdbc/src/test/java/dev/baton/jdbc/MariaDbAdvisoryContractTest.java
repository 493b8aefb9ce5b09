package dev.baton.jdbc;

import dev.baton.servers.DatabaseServer;
import dev.baton.servers.MariaDbServer;
import dev.baton.tck.Capability;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance kit on the advisory strategy, MariaDB (GET_LOCK on a private mariadbd). MariaDB has
 * no shared named locks, so the fixture claims no {@code SHARED_MODE}: the kit checks that read locks
 * are refused with {@link UnsupportedOperationException}. Semaphores need no named lock (they live in
 * tables of their own), so it claims {@code SEMAPHORES}.
 */
class MariaDbAdvisoryContractTest extends LockBackendContract {
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
        return JdbcFixtures.of(
                "jdbc-advisory on MariaDB", () -> server, "advisory", Set.of(Capability.SEMAPHORES, Capability.FAIR));
    }
}
