package dev.baton.check;

import dev.baton.servers.ZooKeeperServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * ZooKeeper targets on a 3-member ensemble: Baton's Curator-compatible lock, and the naive fixed
 * znode. Baton's runs with the session timeout equal to the lease ({@code zookeeper}), and with a
 * session that frees a silent holder's lock before its lease time runs out: asked for by the URI
 * ({@code zookeeper-short-session}), or lowered by the servers' {@code maxSessionTimeout} below the
 * lease the URI asks for ({@code zookeeper-clamped}); there only the session timeout the servers
 * negotiated bounds how long a lease may be trusted. Their pauses and cuts last halfway between the
 * session timeout and the lease: the session expires and another client takes the lock, while a
 * validity counted from the lease alone would still hold when the holder runs again.
 */
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
                sessionTimeout,
                unlimited(),
                null);
    }

    /** The URI asks for a session of half the lease. */
    static CheckTarget shortSession(Duration lease) {
        Duration session = half(lease);
        return new Ensemble(
                "zookeeper-short-session",
                "Baton, ZooKeeper ensemble of 3, sessionTimeout " + session.toMillis() + " ms in the URI (lease "
                        + lease.toMillis() + " ms)",
                "baton",
                Set.of(Fault.PAUSE, Fault.CUT),
                session,
                unlimited(),
                between(session, lease));
    }

    /** The URI asks for a session as long as the lease; the servers grant half of it at most. */
    static CheckTarget clampedSession(Duration lease) {
        Duration session = half(lease);
        return new Ensemble(
                "zookeeper-clamped",
                "Baton, ZooKeeper ensemble of 3 whose maxSessionTimeout (" + session.toMillis()
                        + " ms) lowers the URI's sessionTimeout (the lease, " + lease.toMillis() + " ms)",
                "baton",
                Set.of(Fault.PAUSE, Fault.CUT),
                lease,
                session,
                between(session, lease));
    }

    static CheckTarget naiveZnode(Duration sessionTimeout) {
        return new Ensemble(
                "naive-znode",
                "naive fixed ephemeral znode every waiter watches, on ZooKeeper",
                "naive-znode",
                Set.of(Fault.PAUSE),
                sessionTimeout,
                unlimited(),
                null);
    }

    /** Half the lease, within what the test servers grant. */
    private static Duration half(Duration lease) {
        long millis = Math.max(ZooKeeperServer.MIN_SESSION_MILLIS, lease.toMillis() / 2);
        return Duration.ofMillis(Math.min(ZooKeeperServer.MAX_SESSION_MILLIS, millis));
    }

    /**
     * Halfway between the session timeout and the lease: long enough for the session to expire and
     * another client to take the lock, short enough that a holder whose validity followed its lease
     * would still trust it on resuming.
     */
    private static Duration between(Duration session, Duration lease) {
        return session.plus(lease).dividedBy(2);
    }

    private static Duration unlimited() {
        return Duration.ofMillis(ZooKeeperServer.MAX_SESSION_MILLIS);
    }

    private static final class Ensemble extends ServerTarget {
        private final Duration sessionTimeout;
        private final Duration maxSessionTimeout;
        private final Duration isolation;
        private ZooKeeperServer servers;

        /**
         * @param sessionTimeout what Baton's URI asks for
         * @param maxSessionTimeout the longest session the servers grant
         * @param isolation how long a pause or cut lasts; null for the check's default
         */
        Ensemble(
                String id,
                String description,
                String subject,
                Set<Fault> faults,
                Duration sessionTimeout,
                Duration maxSessionTimeout,
                Duration isolation) {
            super(id, description, subject, true, faults);
            this.sessionTimeout = sessionTimeout;
            this.maxSessionTimeout = maxSessionTimeout;
            this.isolation = isolation;
        }

        @Override
        public Duration isolation(CheckSettings settings) {
            return isolation != null ? isolation : settings.isolation();
        }

        @Override
        public int locks(CheckSettings settings) {
            // The naive lock's herd shows when every client waits on the same node.
            return subject().equals("baton") ? settings.locks() : 1;
        }

        @Override
        public void start() {
            servers = ZooKeeperServer.startEnsemble(3, maxSessionTimeout);
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
