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
 * The conformance kit on one ZooKeeper server with a session timeout of one second, half the kit's
 * lease: the server expires a silent client's session, and with it its locks, before the lease time
 * runs out, so a lease is only as valid as the session's last answer allows.
 *
 * <p>A {@link KitVariant} of {@link ZooKeeperContractTest}, whose session (3 s) outlasts the kit's
 * leases: the wire path is the same, what differs is which of the lease and the session frees a
 * grant first. StoppedHolder runs here, the group where that decides the outcome (what a holder and
 * a leader say after a pause past the session but not past the lease). The others send the same
 * requests as there, with leases mostly no longer than this session, only on a session whose client
 * gives the connection up after 667 ms of silence, which adds flakiness and no coverage; Extend's 4 s
 * extension without auto-renewal could
 * not be served here at all, as a lease without renewal lasts at most the session timeout on
 * ZooKeeper. {@link ZooKeeperSessionBoundTest} checks the bound on renewals, extensions and leases
 * without auto-renewal.
 */
@KitVariant(of = ZooKeeperContractTest.class, runs = KitGroup.STOPPED_HOLDER)
class ZooKeeperShortSessionContractTest extends LockBackendContract {
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(1);

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
                return lease.compareTo(SESSION_TIMEOUT) > 0 ? lease : SESSION_TIMEOUT;
            }

            @Override
            public String name() {
                return "zookeeper, session shorter than the lease";
            }

            @Override
            public String uri() {
                return "zookeeper://" + server.connectString() + "/baton-tck?sessionTimeout="
                        + SESSION_TIMEOUT.toMillis() + "ms";
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
