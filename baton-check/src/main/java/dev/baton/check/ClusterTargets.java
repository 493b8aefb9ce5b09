package dev.baton.check;

import dev.baton.servers.RedisClusterServers;
import dev.baton.servers.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * Redis Cluster of three masters with two replicas each, a real deployment: with Baton's defaults (a
 * grant and each renewal count once a replica of the lock's master acknowledged them while that
 * master has one connected) and with {@code waitReplicas=0} (asynchronous replication).
 *
 * <p>Three masters because a Cluster fails a master over only when a majority of masters agree that
 * it failed; two replicas each for the reason {@link SentinelTargets#REPLICAS} gives. Clients reach
 * the masters through {@code redis-cluster://} seeds and then connect to whichever node owns a slot,
 * so their connections cannot be cut one by one here (faults: see {@link ReplicatedRedisTarget}).
 */
final class ClusterTargets {
    static final int MASTERS = 3;

    /**
     * How soon a node counts another as failed ({@code cluster-node-timeout}): 2 s, so that a failover
     * (detection, the replicas' election) takes about as long as Sentinel's, longer on a loaded
     * machine or when both replicas stand at once and split the vote; shorter risks failing over a
     * master that a loaded machine merely slowed down.
     */
    static final Duration NODE_TIMEOUT = Duration.ofSeconds(2);

    /**
     * A hold granted in the replicas' lag must outlast the failover (and the clients finding the new
     * master) for a lost grant to matter.
     */
    static final Duration LONG_WORK = Duration.ofSeconds(8);

    static final Duration FAILOVER_WAIT = Duration.ofSeconds(30);

    /** Lock keys of Baton's default prefix ({@code baton:{name}:lock}). */
    private static final String LOCK_KEYS = "baton:*:lock";

    private ClusterTargets() {}

    /** Baton's defaults: a grant waits for a replica whenever the lock's master has one connected. */
    static CheckTarget confirmedByAReplica() {
        return new Cluster(
                "redis-cluster",
                "Baton, Redis Cluster, " + MASTERS + " masters + " + SentinelTargets.REPLICAS
                        + " replicas each, defaults (a replica acknowledges each grant and renewal)",
                "");
    }

    /** {@code waitReplicas=0}: asynchronous replication. */
    static CheckTarget asynchronous() {
        return new Cluster(
                "redis-cluster-async",
                "Baton, Redis Cluster, " + MASTERS + " masters + " + SentinelTargets.REPLICAS
                        + " replicas each, waitReplicas=0 (asynchronous replication)",
                "waitReplicas=0");
    }

    private static final class Cluster extends ReplicatedRedisTarget {
        private RedisClusterServers servers;

        Cluster(String id, String description, String query) {
            super(id, description, query, LONG_WORK);
        }

        @Override
        public void start() {
            servers = RedisClusterServers.startWithReplicas(MASTERS, SentinelTargets.REPLICAS, NODE_TIMEOUT);
        }

        @Override
        String uri(String query) {
            return query.isEmpty() ? servers.uri() : servers.uri(query);
        }

        /**
         * Fails over a master that holds a lock now (any master when none does); once a replica took
         * its place and the cluster serves every slot again, it restarts and rejoins as a replica (its
         * {@code nodes.conf} survives the restart), ready for the next failover.
         */
        @Override
        void failOver(Random random) throws InterruptedException {
            List<RedisServer> masters = servers.currentMasters();
            List<RedisServer> holding = masters.stream()
                    .filter(m -> servers.countKeys(m, LOCK_KEYS) > 0)
                    .toList();
            List<RedisServer> choice = holding.isEmpty() ? masters : holding;
            RedisServer master = choice.get(random.nextInt(choice.size()));
            List<RedisServer> replicas = servers.currentReplicasOf(master);
            killBehindLaggingReplicas(master, replicas);
            servers.awaitFailover(master, replicas, FAILOVER_WAIT);
            master.restart();
            servers.awaitRejoined(master, FAILOVER_WAIT);
        }

        @Override
        public void close() {
            if (servers != null) {
                servers.close();
            }
        }
    }
}
