package dev.baton.check;

import dev.baton.servers.ZooKeeperServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;

/** ZooKeeper targets on a 3-member ensemble: Baton's Curator-compatible lock, and the naive fixed znode. */
final class ZooKeeperTargets {
    /** How long a killed member stays down. */
    static final Duration DOWNTIME = Duration.ofSeconds(1);

    private ZooKeeperTargets() {}

    static CheckTarget ensemble(Duration sessionTimeout) {
        return new Ensemble(
                "zookeeper",
                "Baton, ZooKeeper ensemble of 3",
                "baton",
                Set.of(Fault.KILL, Fault.PAUSE, Fault.CUT, Fault.BLACKHOLE, Fault.RESTART),
                sessionTimeout);
    }

    static CheckTarget naiveZnode(Duration sessionTimeout) {
        return new Ensemble(
                "naive-znode",
                "naive fixed ephemeral znode every waiter watches, on ZooKeeper",
                "naive-znode",
                Set.of(Fault.PAUSE),
                sessionTimeout);
    }

    private static final class Ensemble extends ServerTarget {
        private final Duration sessionTimeout;
        private ZooKeeperServer servers;

        Ensemble(String id, String description, String subject, Set<Fault> faults, Duration sessionTimeout) {
            super(id, description, subject, true, faults);
            this.sessionTimeout = sessionTimeout;
        }

        @Override
        public int locks(CheckSettings settings) {
            // The naive lock's herd shows when every client waits on the same node.
            return subject().equals("baton") ? settings.locks() : 1;
        }

        @Override
        public void start() {
            servers = ZooKeeperServer.startEnsemble(3);
        }

        @Override
        List<InetSocketAddress> addresses() {
            return new ArrayList<>(IntStream.range(0, servers.size())
                    .mapToObj(servers::address)
                    .toList());
        }

        @Override
        String uri(List<InetSocketAddress> through) {
            if (subject().equals("baton")) {
                return "zookeeper://" + hostPorts(through) + "/check?sessionTimeout=" + sessionTimeout.toMillis()
                        + "ms";
            }
            return hostPorts(through); // a plain connect string for the naive client
        }

        @Override
        public void hitServer(Fault fault, Random random) throws InterruptedException {
            if (fault != Fault.RESTART) {
                super.hitServer(fault, random);
            }
            int member = random.nextInt(servers.size());
            servers.kill(member);
            Thread.sleep(DOWNTIME.toMillis()); // the outage itself
            servers.restart(member);
        }

        @Override
        public void close() {
            if (servers != null) {
                servers.close();
            }
        }
    }
}
