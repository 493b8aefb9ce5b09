package dev.baton.check;

import dev.baton.servers.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A Baton target on replicated Redis (Sentinel, Cluster): Baton's defaults or {@code waitReplicas=0},
 * faults kill, pause and failover. Clients find the masters through the Sentinel or the cluster's
 * seeds and then connect to them directly, so their connections cannot be cut one by one here.
 *
 * <p>Not strict: Redis promises no mutual exclusion across a failover (with {@code waitReplicas=0} a
 * promoted replica may lack a grant; with the default, a grant written while the master had no
 * replica connected counts unacknowledged), so overlaps are reported, not counted as violations; the
 * tests of these targets assert none while a holder ran freely.
 */
abstract class ReplicatedRedisTarget implements CheckTarget {
    private final String id;
    private final String description;
    /** The URI's query ({@code waitReplicas=0}), or empty for Baton's defaults. */
    private final String query;

    private final Duration longWork;

    ReplicatedRedisTarget(String id, String description, String query, Duration longWork) {
        this.id = id;
        this.description = description;
        this.query = query;
        this.longWork = longWork;
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
        return longWork;
    }

    @Override
    public Route route(int client) {
        return new Route(uri(query), List.of());
    }

    /** The servers' URI with {@code query} (empty: none). */
    abstract String uri(String query);

    @Override
    public void hitServer(Fault fault, Random random) throws InterruptedException {
        if (fault != Fault.FAILOVER) {
            throw new UnsupportedOperationException(id + " cannot inject " + fault.id());
        }
        failOver(random);
    }

    /** Kills a master (see {@link #killBehindLaggingReplicas}) and returns once a replica serves in its place. */
    abstract void failOver(Random random) throws InterruptedException;

    /**
     * Holds {@code replicas} back for {@link SentinelTargets#REPLICA_LAG} (SIGSTOP, as a slow link to
     * them would: replication on loopback is faster than any kill), so that grants made meanwhile reach
     * {@code master} only, then kills it and lets them go on.
     */
    static void killBehindLaggingReplicas(RedisServer master, List<RedisServer> replicas) throws InterruptedException {
        replicas.forEach(RedisServer::pause);
        try {
            Thread.sleep(SentinelTargets.REPLICA_LAG.toMillis()); // grants made now reach the master only
            master.kill();
        } finally {
            replicas.forEach(RedisServer::resume);
        }
    }
}
