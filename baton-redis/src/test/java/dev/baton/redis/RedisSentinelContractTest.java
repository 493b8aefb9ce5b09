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
 * The conformance kit on a master found through Sentinel ({@code redis-sentinel://}) with one
 * replica and the defaults: every grant and renewal waits for the replica's acknowledgement
 * ({@link RedisReplicaWait#AUTO}). The kit's
 * proxy tests cut the connection to the master itself, so for them the fixture reaches the master
 * through the proxy with a plain {@code redis://} URI: a proxy in front of the Sentinel would not
 * cut the master's connection.
 */
class RedisSentinelContractTest extends LockBackendContract {
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
                return "redis via Sentinel";
            }

            @Override
            public String uri() {
                return servers.uri();
            }

            @Override
            public InetSocketAddress serverAddress() {
                return new InetSocketAddress(
                        servers.master().host(), servers.master().port());
            }

            @Override
            public String uriVia(InetSocketAddress address) {
                return "redis://" + address.getHostString() + ":" + address.getPort();
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of(Capability.SHARED_MODE, Capability.SEMAPHORES, Capability.FAIR);
            }
        };
    }
}
