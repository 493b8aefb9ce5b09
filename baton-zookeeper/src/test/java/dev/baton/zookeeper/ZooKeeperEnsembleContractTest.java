package dev.baton.zookeeper;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.servers.ZooKeeperServer;
import dev.baton.tck.Capability;
import dev.baton.tck.KitTime;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance kit on a 3-server ZooKeeper ensemble. */
class ZooKeeperEnsembleContractTest extends LockBackendContract {
    private static ZooKeeperServer ensemble;

    @BeforeAll
    static void startEnsemble() {
        ensemble = ZooKeeperServer.startEnsemble(3);
        warmUp();
    }

    /**
     * The servers run in this JVM and start some of their worker threads on first use; take locks
     * through every server once so that those threads exist before the kit checks that a closed
     * client leaves no threads behind.
     */
    private static void warmUp() {
        List<LockClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < ensemble.size(); i++) {
                InetSocketAddress server = ensemble.address(i);
                for (int c = 0; c < 2; c++) {
                    clients.add(Baton.connect(
                            "zookeeper://" + server.getHostString() + ":" + server.getPort() + "/baton-tck?"
                                    + ZooKeeperContractTest.SESSION,
                            LockOptions.defaults()));
                }
            }
            String name = "warm-up-" + UUID.randomUUID();
            clients.parallelStream().forEach(client -> {
                for (int n = 0; n < 5; n++) {
                    client.lock(name).acquire(KitTime.COLD_START).close();
                    client.readWriteLock(name)
                            .readLock()
                            .acquire(KitTime.COLD_START)
                            .close();
                }
            });
        } finally {
            clients.forEach(LockClient::close);
        }
    }

    @AfterAll
    static void stopEnsemble() {
        ensemble.close();
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
                return "zookeeper, 3-server ensemble";
            }

            @Override
            public String uri() {
                return "zookeeper://" + ensemble.connectString() + "/baton-tck?" + ZooKeeperContractTest.SESSION;
            }

            @Override
            public InetSocketAddress serverAddress() {
                return ensemble.address(0);
            }

            /** Through the proxy only: a client that could fail over to another server would not be cut. */
            @Override
            public String uriVia(InetSocketAddress address) {
                return "zookeeper://" + address.getHostString() + ":" + address.getPort() + "/baton-tck?"
                        + ZooKeeperContractTest.SESSION;
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of(Capability.SHARED_MODE, Capability.SEMAPHORES, Capability.FAIR);
            }

            @Override
            public boolean isServerThread(Thread thread) {
                return ensemble.isServerThread(thread);
            }
        };
    }
}
