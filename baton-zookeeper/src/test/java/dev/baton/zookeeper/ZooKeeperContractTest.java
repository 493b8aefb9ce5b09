package dev.baton.zookeeper;

import dev.baton.servers.ZooKeeperServer;
import dev.baton.tck.Capability;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance kit on one standalone ZooKeeper server. */
class ZooKeeperContractTest extends LockBackendContract {
    /** Short sessions so that a killed holder's lock frees within the kit's bounds. */
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);

    static final String SESSION = "sessionTimeout=" + SESSION_TIMEOUT.toSeconds() + "s";

    private static ZooKeeperServer server;

    @BeforeAll
    static void startServer() {
        server = ZooKeeperServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    protected LockBackendFixture fixture() {
        return new LockBackendFixture() {
            @Override
            public Duration freedAfter(Duration lease) {
                // A dead holder's nodes go with its session, whatever lease it asked for.
                return lease.compareTo(ZooKeeperContractTest.SESSION_TIMEOUT) > 0
                        ? lease
                        : ZooKeeperContractTest.SESSION_TIMEOUT;
            }

            @Override
            public String name() {
                return "zookeeper, one server";
            }

            @Override
            public String uri() {
                return "zookeeper://" + server.connectString() + "/baton-tck?" + SESSION;
            }

            @Override
            public InetSocketAddress serverAddress() {
                return server.address(0);
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of(Capability.SHARED_MODE, Capability.SEMAPHORES, Capability.FAIR);
            }

            @Override
            public boolean isServerThread(Thread thread) {
                return server.isServerThread(thread);
            }
        };
    }
}
