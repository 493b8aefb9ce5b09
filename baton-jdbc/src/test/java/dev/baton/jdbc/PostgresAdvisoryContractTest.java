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

/** The conformance kit on the advisory strategy, PostgreSQL. */
class PostgresAdvisoryContractTest extends LockBackendContract {
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
        return new LockBackendFixture() {
            @Override
            public String name() {
                return "jdbc-advisory on PostgreSQL";
            }

            @Override
            public String uri() {
                String separator = server.jdbcUrl().contains("?") ? "&" : "?";
                return server.jdbcUrl() + separator + "user=" + encode(server.user()) + "&password="
                        + encode(server.password()) + "&strategy=advisory";
            }

            @Override
            public InetSocketAddress serverAddress() {
                return new InetSocketAddress(server.host(), server.port());
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of(Capability.SHARED_MODE);
            }
        };
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
