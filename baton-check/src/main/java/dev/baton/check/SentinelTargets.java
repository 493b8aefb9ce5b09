package dev.baton.check;

import dev.baton.servers.RedisSentinelServers;
import dev.baton.servers.RedisServer;
import java.time.Duration;
import java.util.Random;

/**
 * Redis behind Sentinel with two replicas, a real deployment: with Baton's defaults (a grant and each
 * renewal count once a replica acknowledged them while the master has one connected) and with {@code
 * waitReplicas=0} (asynchronous replication, the failover case the usual articles warn about). Faults:
 * see {@link ReplicatedRedisTarget}.
 */
final class SentinelTargets {
    /** Replicas beside the master: with one, nothing can acknowledge while it is the one that failed. */
    static final int REPLICAS = 2;

    /** How long the replicas fall behind before the master dies ({@link ReplicatedRedisTarget}). */
    static final Duration REPLICA_LAG = Duration.ofSeconds(1);

    /**
     * A failover takes about 3 s here (Sentinel's down-after of 1 s, the election, clients finding the
     * new master): a hold granted in the lag must outlast that for the lost grant to matter.
     */
    static final Duration LONG_WORK = Duration.ofSeconds(6);

    static final Duration FAILOVER_WAIT = Duration.ofSeconds(20);

    private SentinelTargets() {}

    /** Baton's defaults: a grant waits for a replica whenever the master has one connected. */
    static CheckTarget confirmedByAReplica() {
        return new Sentinel(
                "redis-sentinel",
                "Baton, Redis Sentinel, master + " + REPLICAS + " replicas, defaults (a replica acknowledges each"
                        + " grant and renewal)",
                "");
    }

    /** {@code waitReplicas=0}: asynchronous replication. */
    static CheckTarget asynchronous() {
        return new Sentinel(
                "redis-sentinel-async",
                "Baton, Redis Sentinel, master + " + REPLICAS + " replicas, waitReplicas=0 (asynchronous"
                        + " replication)",
                "waitReplicas=0");
    }

    private static final class Sentinel extends ReplicatedRedisTarget {
        private RedisSentinelServers servers;

        Sentinel(String id, String description, String query) {
            super(id, description, query, LONG_WORK);
        }

        @Override
        public void start() {
            servers = RedisSentinelServers.startWithReplicas(REPLICAS);
        }

        @Override
        String uri(String query) {
            return query.isEmpty() ? servers.uri() : servers.uri(query);
        }

        @Override
        void failOver(Random random) throws InterruptedException {
            RedisServer master = servers.currentMaster();
            killBehindLaggingReplicas(
                    master,
                    servers.nodes().stream().filter(node -> node != master).toList());
            servers.awaitFailover(master, FAILOVER_WAIT);
            // Back empty; the Sentinel turns it into a replica of the new master, ready for the next failover.
            master.restart();
        }

        @Override
        public void close() {
            if (servers != null) {
                servers.close();
            }
        }
    }
}
