package dev.baton.jdbc;

import dev.baton.servers.H2Server;
import dev.baton.tck.Capability;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.net.InetSocketAddress;
import java.util.Set;
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
        return new LockBackendFixture() {
            @Override
            public String name() {
                return "jdbc-optimistic on H2";
            }

            @Override
            public String uri() {
                return server.jdbcUrl() + ";USER=" + server.user() + ";PASSWORD=" + server.password()
                        + ";strategy=optimistic";
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
}
