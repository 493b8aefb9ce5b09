package dev.baton.redis;

import dev.baton.servers.RedisSentinelServers;
import dev.baton.tck.Capability;
import dev.baton.tck.KitGroup;
import dev.baton.tck.KitVariant;
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
 *
 * <p>A {@link KitVariant} of {@link RedisSentinelContractTest}, whose default ({@code waitReplicas}
 * absent, {@link RedisReplicaWait#AUTO}) already waits for one replica whenever one is connected, and
 * in the kit the replica always is: through Sentinel both classes send the same script and the same
 * {@code WAIT 1} after every grant and renewal; the default only adds its {@code INFO replication}
 * question in the same pipeline. What differs is the proxy tests: that class's {@link
 * LockBackendFixture#uriVia} is a plain {@code redis://} URI, on which the default is no wait, while
 * this one's keeps {@code waitReplicas=1}, so only here do grants and renewals wait for the replica
 * through a cut, slowed, paused or hung link. LossDetection and RenewalAtScale run here; the other
 * groups (Operators too: its admin and holders use the same URI and scripts) take exactly that class's
 * path and are left to it. What an explicit count does that the
 * default does not (a paused, killed or missing replica refusing the grant, a reconnect between the
 * write and its {@code WAIT}, a hand-over, a failover) is {@link RedisWaitReplicasTest}'s.
 */
@KitVariant(
        of = RedisSentinelContractTest.class,
        runs = {KitGroup.LOSS_DETECTION, KitGroup.RENEWAL_AT_SCALE})
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
