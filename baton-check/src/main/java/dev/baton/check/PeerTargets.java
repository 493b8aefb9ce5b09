package dev.baton.check;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The peer libraries as check targets: each runs on the servers of a Baton target, under its faults,
 * with its seed and its lease, so that a peer's row and Baton's read side by side.
 *
 * <p>A peer is neither naive (the checker is not required to find anything) nor strict (no peer here
 * promises that no two clients hold a lock at once while both run freely). Its row counts what
 * happened, as Baton's does; what breaks is reported as found, not as a violation of Baton's.
 */
public final class PeerTargets {
    /** Each Baton target's peers, in report order. */
    private static final Map<String, List<String>> PEERS = new LinkedHashMap<>();

    static {
        PEERS.put("redis", List.of("redisson", "redisson-fenced"));
        PEERS.put("redis-sentinel", List.of("redisson-sentinel", "redisson-fenced-sentinel"));
        PEERS.put("zookeeper", List.of("curator"));
        PEERS.put("postgres", List.of("shedlock-jdbc"));
        PEERS.put("etcd", List.of("jetcd"));
    }

    private PeerTargets() {}

    /** {@return whether {@code target} is a peer library's target} */
    public static boolean isPeer(String target) {
        return PEERS.values().stream().anyMatch(peers -> peers.contains(target));
    }

    /**
     * {@return {@code backends} with each one's peers right after it (a peer already chosen stays
     * where it was)}
     */
    public static List<String> withPeers(List<String> backends) {
        List<String> all = new ArrayList<>();
        for (String backend : backends) {
            if (!all.contains(backend)) {
                all.add(backend);
            }
            for (String peer : PEERS.getOrDefault(backend, List.of())) {
                if (!all.contains(peer) && !backends.contains(peer)) {
                    all.add(peer);
                }
            }
        }
        return all;
    }

    /** Adds the peer targets. */
    static void register(Map<String, Function<CheckSettings, CheckTarget>> targets) {
        Function<CheckSettings, CheckTarget> redis = targets.get("redis");
        Function<CheckSettings, CheckTarget> sentinel = targets.get("redis-sentinel");
        Function<CheckSettings, CheckTarget> zookeeper = targets.get("zookeeper");
        Function<CheckSettings, CheckTarget> postgres = targets.get("postgres");
        Function<CheckSettings, CheckTarget> etcd = targets.get("etcd");
        targets.put(
                "redisson",
                s -> new Peer(
                        "redisson",
                        "Redisson RLock (watchdog), Redis single; no fencing token",
                        "redisson",
                        redis.apply(s)));
        targets.put(
                "redisson-fenced",
                s -> new Peer(
                        "redisson-fenced",
                        "Redisson RFencedLock (watchdog), Redis single; its token",
                        "redisson-fenced",
                        redis.apply(s)));
        targets.put(
                "redisson-sentinel",
                s -> new Peer(
                        "redisson-sentinel",
                        "Redisson RLock (watchdog), Redis Sentinel, master + 2 replicas; no fencing token",
                        "redisson",
                        sentinel.apply(s)));
        targets.put(
                "redisson-fenced-sentinel",
                s -> new Peer(
                        "redisson-fenced-sentinel",
                        "Redisson RFencedLock (watchdog), Redis Sentinel, master + 2 replicas; its token",
                        "redisson-fenced",
                        sentinel.apply(s)));
        targets.put(
                "curator",
                s -> new Peer(
                        "curator",
                        "Curator InterProcessMutex, ZooKeeper ensemble of 3; token: the lock node's czxid",
                        "curator",
                        zookeeper.apply(s)));
        targets.put(
                "shedlock-jdbc",
                s -> new Peer(
                        "shedlock-jdbc",
                        "ShedLock JdbcTemplateLockProvider (db time, lockAtMostFor = lease), PostgreSQL; no fencing"
                                + " token",
                        "shedlock-jdbc",
                        postgres.apply(s),
                        PeerSubjects::createShedLockTable));
        targets.put(
                "jetcd",
                s -> new Peer(
                        "jetcd",
                        "jetcd Lock service on a lease kept alive, etcd; token: the lock key's create revision",
                        "jetcd",
                        etcd.apply(s)));
    }

    /** A peer library on the servers of a Baton target: its faults, its servers, its routes. */
    private static final class Peer implements CheckTarget {
        private final String id;
        private final String description;
        private final String subject;
        private final CheckTarget servers;
        private final Consumer<String> prepare;

        Peer(String id, String description, String subject, CheckTarget servers) {
            this(id, description, subject, servers, uri -> {});
        }

        Peer(String id, String description, String subject, CheckTarget servers, Consumer<String> prepare) {
            this.id = id;
            this.description = description;
            this.subject = subject;
            this.servers = servers;
            this.prepare = prepare;
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
            return subject;
        }

        @Override
        public boolean peer() {
            return true;
        }

        @Override
        public boolean strict() {
            return false;
        }

        @Override
        public Set<Fault> faults() {
            return servers.faults();
        }

        @Override
        public Duration longWork(CheckSettings settings) {
            return servers.longWork(settings);
        }

        @Override
        public Duration minimumLease() {
            return servers.minimumLease();
        }

        @Override
        public int locks(CheckSettings settings) {
            return servers.locks(settings);
        }

        @Override
        public void start() {
            start(faults());
        }

        @Override
        public void start(Set<Fault> planned) {
            servers.start(planned);
            try (Route route = servers.route(-1)) {
                prepare.accept(route.uri());
            } catch (RuntimeException e) {
                servers.close();
                throw e;
            }
        }

        @Override
        public Route route(int client) {
            return servers.route(client);
        }

        @Override
        public void hitServer(Fault fault, Random random) throws InterruptedException {
            servers.hitServer(fault, random);
        }

        @Override
        public void close() {
            servers.close();
        }
    }
}
