package dev.baton.redis;

import dev.baton.servers.RedisClusterServers;
import dev.baton.servers.RedisServer;
import dev.baton.tck.Capability;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import io.lettuce.core.cluster.SlotHash;
import java.net.InetSocketAddress;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * The conformance kit on a Redis Cluster of three masters ({@code redis-cluster://}), with the
 * lock names of most tests spread over all three.
 *
 * <p>The kit's proxy tests put one proxy in front of {@link #fixture()}'s server address, but a
 * cluster client talks to every master at the address the master announces, not through a seed.
 * So the fixture reaches the cluster through the proxy the way a client behind NAT does: the proxy
 * is the seed and {@code natMap} sends the connections to the first master through it, and the
 * loss-detection and renewal-at-scale tests name their locks so that they live on that master. Cutting the proxy then
 * cuts the client from the master that holds its lock, as a network partition would.
 */
class RedisClusterContractTest extends LockBackendContract {
    private static final RedisKeys KEYS = new RedisKeys(RedisKeys.DEFAULT_PREFIX);
    static RedisClusterServers cluster;
    private boolean pinToFirstMaster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterServers.start(3);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @BeforeEach
    void pinLossDetectionLocks(TestInfo info) {
        pinToFirstMaster = info.getTestClass()
                .map(type -> type.getSimpleName().equals("LossDetection")
                        || type.getSimpleName().equals("RenewalAtScale"))
                .orElse(false);
    }

    @Override
    protected String lockName() {
        while (true) {
            String name = super.lockName();
            if (!pinToFirstMaster || cluster.ownerOf(SlotHash.getSlot(KEYS.keys(name)[0])) == first()) {
                return name;
            }
        }
    }

    private static RedisServer first() {
        return cluster.masters().get(0);
    }

    @Override
    protected LockBackendFixture fixture() {
        return new LockBackendFixture() {
            @Override
            public String name() {
                return cluster.replicas().isEmpty()
                        ? "redis cluster of 3 masters"
                        : "redis cluster of 3 masters with a replica each";
            }

            @Override
            public String uri() {
                return cluster.uri();
            }

            @Override
            public InetSocketAddress serverAddress() {
                return new InetSocketAddress(first().host(), first().port());
            }

            @Override
            public String uriVia(InetSocketAddress address) {
                String via = address.getHostString() + ":" + address.getPort();
                return "redis-cluster://" + via + "?natMap=" + first().host() + ":" + first().port() + ">" + via;
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of(Capability.SHARED_MODE, Capability.SEMAPHORES, Capability.FAIR);
            }
        };
    }
}
