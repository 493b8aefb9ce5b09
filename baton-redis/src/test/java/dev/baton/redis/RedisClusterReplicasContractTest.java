package dev.baton.redis;

import dev.baton.servers.RedisClusterServers;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance kit on a Redis Cluster of three masters with a replica each, with the default
 * {@code waitReplicas} (issue #25): every grant and renewal waits for the replica of its slot's
 * master. The same fixture as {@link RedisClusterContractTest}, on another cluster.
 */
class RedisClusterReplicasContractTest extends RedisClusterContractTest {
    /** Hides {@link RedisClusterContractTest#startCluster()}, so JUnit runs this one instead. */
    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterServers.startWithReplicas(3);
    }
}
