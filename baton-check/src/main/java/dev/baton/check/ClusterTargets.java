package dev.baton.check;

import dev.baton.servers.RedisClusterServers;
import dev.baton.servers.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Redis Cluster of three masters with two replicas each, a real deployment: with Baton's defaults (a
 * grant and each renewal count once a replica of the lock's master acknowledged them while that
 * master has one connected) and with {@code waitReplicas=0} (asynchronous replication).
 *
 * <p>Three masters because a Cluster fails a master over only when a majority of masters agree that
 * it failed; two replicas each for the reason {@link SentinelTargets#REPLICAS} gives. Clients reach
 * the masters through {@code redis-cluster://} seeds and then connect to whichever node owns a slot,
 * so their connections cannot be cut one by one here: the faults are kill, pause and failover.
 */
final class ClusterTargets {
    static final int MASTERS = 3;

    /**
     * How soon a node counts another as failed ({@code cluster-node-timeout}): 2 s, so that a failover
     * takes about 3 s here (detection, the replicas' election), as Sentinel's does, up to about 12 s
     * on a loaded machine or when both replicas stand at once and split the vote; shorter risks failing
     * over a master that a loaded 2-core machine merely slowed down.
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

    private static final class Cluster implements CheckTarget {
        private final String id;
        private final String description;
        private final String query;
        private RedisClusterServers servers;

        Cluster(String id, String description, String query) {
            this.id = id;
            this.description = description;
            this.query = query;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public String description() {
            return description;
        }

        @Override
        public String subject() {
            return "baton";
        }

        /**
         * Not strict, as on Sentinel: Redis promises no mutual exclusion across a failover (with
         * {@code waitReplicas=0} a promoted replica may lack a grant; with the default, a grant written
         * while the master had no replica connected counts unacknowledged), so overlaps are reported,
         * not counted as violations; the test of this target asserts none while a holder ran freely.
         */
        @Override
        public boolean strict() {
            return false;
        }

        @Override
        public Set<Fault> faults() {
            return Set.of(Fault.KILL, Fault.PAUSE, Fault.FAILOVER);
        }

        @Override
        public Duration longWork(CheckSettings settings) {
            return LONG_WORK;
        }

        @Override
        public void start() {
            servers = RedisClusterServers.startWithReplicas(MASTERS, SentinelTargets.REPLICAS, NODE_TIMEOUT);
        }

        @Override
        public Route route(int client) {
            return new Route(query.isEmpty() ? servers.uri() : servers.uri(query), List.of());
        }

        /**
         * Fails over a master that holds a lock now (any master when none does): its replicas fall
         * behind (SIGSTOP, as behind a slow link) for {@link SentinelTargets#REPLICA_LAG}, it is killed,
         * they resume; once a replica took its place and the cluster serves every slot again, it
         * restarts and rejoins as a replica (its {@code nodes.conf} survives the restart), ready for the
         * next failover.
         */
        @Override
        public void hitServer(Fault fault, Random random) throws InterruptedException {
            if (fault != Fault.FAILOVER) {
                throw new UnsupportedOperationException(id + " cannot inject " + fault.id());
            }
            List<RedisServer> masters = servers.currentMasters();
            List<RedisServer> holding = masters.stream()
                    .filter(m -> servers.countKeys(m, LOCK_KEYS) > 0)
                    .toList();
            List<RedisServer> choice = holding.isEmpty() ? masters : holding;
            RedisServer master = choice.get(random.nextInt(choice.size()));
            List<RedisServer> replicas = servers.currentReplicasOf(master);
            replicas.forEach(RedisServer::pause);
            try {
                Thread.sleep(SentinelTargets.REPLICA_LAG.toMillis()); // grants made now reach the master only
                master.kill();
            } finally {
                replicas.forEach(RedisServer::resume);
            }
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
