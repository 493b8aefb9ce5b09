package dev.baton.check;

import dev.baton.servers.RedisSentinelServers;
import dev.baton.servers.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Redis behind Sentinel with two replicas, a real deployment: with Baton's defaults (a grant and each
 * renewal count once a replica acknowledged them while the master has one connected) and with {@code
 * waitReplicas=0} (asynchronous replication, the failover case the usual articles warn about).
 *
 * <p>Clients find the master through the Sentinel and then connect to it directly, so their
 * connections cannot be cut one by one here: the faults are kill, pause and failover.
 */
final class SentinelTargets {
    /** Replicas beside the master: with one, nothing can acknowledge while it is the one that failed. */
    static final int REPLICAS = 2;

    /**
     * How long the replicas fall behind before the master dies: replication on loopback is faster than
     * any kill, so the fault first holds both replicas back (SIGSTOP), as a slow link to them would.
     */
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

    private static final class Sentinel implements CheckTarget {
        private final String id;
        private final String description;
        private final String query;
        private RedisSentinelServers servers;

        Sentinel(String id, String description, String query) {
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
            servers = RedisSentinelServers.startWithReplicas(REPLICAS);
        }

        @Override
        public Route route(int client) {
            return new Route(query.isEmpty() ? servers.uri() : servers.uri(query), List.of());
        }

        @Override
        public void hitServer(Fault fault, Random random) throws InterruptedException {
            if (fault != Fault.FAILOVER) {
                throw new UnsupportedOperationException(id + " cannot inject " + fault.id());
            }
            RedisServer master = servers.currentMaster();
            List<RedisServer> replicas =
                    servers.nodes().stream().filter(node -> node != master).toList();
            replicas.forEach(RedisServer::pause);
            try {
                Thread.sleep(REPLICA_LAG.toMillis()); // grants made now reach the master only
                master.kill();
            } finally {
                replicas.forEach(RedisServer::resume);
            }
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
