package dev.baton.redis;

import dev.baton.servers.RedisSentinelServers;
import dev.baton.tck.Capability;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.net.InetSocketAddress;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance kit on a Sentinel-managed master with one replica and {@code waitReplicas=1}: every
 * grant and renewal waits for the replica's acknowledgement. As in {@link RedisSentinelContractTest},
 * the kit's proxy tests reach the master itself with a plain {@code redis://} URI (same option).
 */
class RedisSentinelWaitReplicasContractTest extends LockBackendContract {
    private static RedisSentinelServers servers;

    @BeforeAll
    static void startServers() {
        servers = RedisSentinelServers.startWithReplicas(1);
    }

    @AfterAll
    static void stopServers() {
        servers.close();
    }

    @Override
    protected LockBackendFixture fixture() {
        return new LockBackendFixture() {
            @Override
            public String name() {
                return "redis via Sentinel, waitReplicas=1";
            }

            @Override
            public String uri() {
                return servers.uri("waitReplicas=1");
            }

            @Override
            public InetSocketAddress serverAddress() {
                return new InetSocketAddress(
                        servers.master().host(), servers.master().port());
            }

            @Override
            public String uriVia(InetSocketAddress address) {
                return "redis://" + address.getHostString() + ":" + address.getPort() + "?waitReplicas=1";
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of(Capability.SHARED_MODE, Capability.SEMAPHORES, Capability.FAIR);
            }
        };
    }
}
