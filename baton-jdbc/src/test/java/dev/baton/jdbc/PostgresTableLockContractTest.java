package dev.baton.jdbc;

import dev.baton.servers.PostgresServer;
import dev.baton.tck.Capability;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance kit on the table strategy, PostgreSQL. */
class PostgresTableLockContractTest extends LockBackendContract {
    private static PostgresServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    protected LockBackendFixture fixture() {
        return LockBackendFixture.of(
                "jdbc-table on PostgreSQL",
                () -> server.jdbcUrl() + "?user=" + encode(server.user()) + "&password=" + encode(server.password()),
                () -> new InetSocketAddress(server.host(), server.port()),
                Set.of(Capability.SHARED_MODE));
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
