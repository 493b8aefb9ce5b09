package dev.baton.zookeeper;

import dev.baton.servers.ZooKeeperServer;
import dev.baton.tck.Capability;
import dev.baton.tck.KitGroup;
import dev.baton.tck.KitVariant;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance kit with the URI's default session timeout (30 s) on a server whose {@code
 * maxSessionTimeout} is one second: the server lowers the session to one second, half the kit's
 * lease, as a production server with a one-second tick lowers it to 20 s. Only the session timeout
 * the server negotiated tells how long a silent client keeps its locks; the URI's does not.
 *
 * <p>A {@link KitVariant} of {@link ZooKeeperContractTest}, for the same reasons as {@link
 * ZooKeeperShortSessionContractTest}: StoppedHolder runs here, where the server, not the URI, makes
 * the session shorter than the lease.
 */
@KitVariant(of = ZooKeeperContractTest.class, runs = KitGroup.STOPPED_HOLDER)
class ZooKeeperClampedSessionContractTest extends LockBackendContract {
    static final Duration MAX_SESSION_TIMEOUT = Duration.ofSeconds(1);

    private static ZooKeeperServer server;

    @BeforeAll
    static void startServer() {
        server = ZooKeeperServer.start(MAX_SESSION_TIMEOUT);
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
                return lease.compareTo(MAX_SESSION_TIMEOUT) > 0 ? lease : MAX_SESSION_TIMEOUT;
            }

            @Override
            public String name() {
                return "zookeeper, session lowered by the server below the lease";
            }

            @Override
            public String uri() {
                return "zookeeper://" + server.connectString() + "/baton-tck";
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
