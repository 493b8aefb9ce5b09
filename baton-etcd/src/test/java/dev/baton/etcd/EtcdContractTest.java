package dev.baton.etcd;

import dev.baton.servers.EtcdServer;
import dev.baton.tck.Capability;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance kit on one etcd member. */
class EtcdContractTest extends LockBackendContract {
    private static EtcdServer server;

    @BeforeAll
    static void startServer() {
        server = EtcdServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected LockBackendFixture fixture() {
        return LockBackendFixture.of(
                "etcd, one member",
                () -> server.uri() + "/baton-tck",
                () -> server.address(0),
                Set.of(Capability.SHARED_MODE, Capability.SEMAPHORES, Capability.FAIR));
    }
}
