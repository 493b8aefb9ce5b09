package dev.baton.check;

import dev.baton.servers.EtcdServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * etcd targets: Baton's etcd lock on one member, and on a 3-member cluster where a member restart and
 * a kill of the Raft leader come on top of the client faults. Both strict: etcd's keys and leases are
 * linearizable, so two clients hold a lock at once only when the earlier holder was stopped or cut off
 * past its lease.
 */
final class EtcdTargets {
    /** How long a killed member stays down. */
    static final Duration DOWNTIME = Duration.ofSeconds(1);
    /** etcd's minimum lease TTL with default Raft timings: a shorter lease would be raised to it. */
    static final Duration MINIMUM_LEASE = Duration.ofSeconds(2);

    private static final Set<Fault> CLIENT_FAULTS = EnumSet.of(Fault.KILL, Fault.PAUSE, Fault.CUT, Fault.BLACKHOLE);

    private EtcdTargets() {}

    static CheckTarget single() {
        Set<Fault> faults = EnumSet.copyOf(CLIENT_FAULTS);
        faults.add(Fault.RESTART);
        return new Etcd("etcd", "Baton, etcd (one member)", 1, faults);
    }

    static CheckTarget cluster() {
        Set<Fault> faults = EnumSet.copyOf(CLIENT_FAULTS);
        faults.add(Fault.RESTART);
        faults.add(Fault.LEADER_KILL);
        return new Etcd("etcd-cluster", "Baton, etcd cluster of 3", 3, faults);
    }

    private static final class Etcd extends ServerTarget {
        private final int size;
        private EtcdServer servers;

        Etcd(String id, String description, int size, Set<Fault> faults) {
            super(id, description, "baton", true, faults);
            this.size = size;
        }

        @Override
        public Duration minimumLease() {
            return MINIMUM_LEASE;
        }

        @Override
        public void start() {
            servers = EtcdServer.startCluster(size);
            if (servers.external()) {
                servers.close();
                throw new IllegalStateException("the etcd check kills and restarts members, so it starts its own;"
                        + " unset " + EtcdServer.ENV_ENDPOINTS);
            }
        }

        @Override
        List<InetSocketAddress> addresses() {
            return IntStream.range(0, servers.size()).mapToObj(servers::address).toList();
        }

        @Override
        String uri(List<InetSocketAddress> through) {
            return "etcd://" + hostPorts(through) + "/check";
        }

        @Override
        public void hitServer(Fault fault, Random random) throws InterruptedException {
            int member =
                    switch (fault) {
                        case RESTART -> random.nextInt(servers.size());
                        case LEADER_KILL -> leader();
                        default -> {
                            super.hitServer(fault, random);
                            yield -1;
                        }
                    };
            servers.kill(member);
            Thread.sleep(DOWNTIME.toMillis()); // the outage itself
            servers.restart(member);
        }

        /** The member that is the leader now, waiting for an election to end (a member may just have come back). */
        private int leader() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                int leader = servers.leader();
                if (leader >= 0) {
                    return leader;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("no etcd member reported itself the leader within 30 s");
                }
                TimeUnit.MILLISECONDS.sleep(20); // polls the members' metrics until an election ends
            }
        }

        @Override
        public void close() {
            if (servers != null) {
                servers.close();
            }
        }
    }
}
