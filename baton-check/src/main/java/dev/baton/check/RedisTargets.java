package dev.baton.check;

import dev.baton.servers.RedisServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Redis targets: a single server with and without persistence, Redlock over five masters, and the
 * naive SET NX lock on a single server.
 */
final class RedisTargets {
    /** How long a restarted Redis stays down. */
    static final Duration DOWNTIME = Duration.ofSeconds(1);

    private static final Set<Fault> CLIENT_FAULTS = Set.of(Fault.KILL, Fault.PAUSE, Fault.CUT, Fault.BLACKHOLE);

    private RedisTargets() {}

    static CheckTarget single() {
        return new Masters("redis", "Baton, Redis single, no persistence", "baton", 1, List.of(), withRestart());
    }

    static CheckTarget appendOnly() {
        return new Masters(
                "redis-aof",
                "Baton, Redis single, appendonly with fsync always",
                "baton",
                1,
                List.of("--appendonly", "yes", "--appendfsync", "always"),
                withRestart());
    }

    static CheckTarget redlock() {
        return new Masters(
                "redlock", "Baton, Redlock over 5 masters, no persistence", "baton", 5, List.of(), withRestart());
    }

    static CheckTarget naiveSetNx() {
        return new Masters(
                "naive-setnx",
                "naive SET NX PX, GET-then-DEL release, on Redis",
                "naive-setnx",
                1,
                List.of(),
                Set.of(Fault.KILL, Fault.PAUSE));
    }

    private static Set<Fault> withRestart() {
        Set<Fault> faults = new java.util.HashSet<>(CLIENT_FAULTS);
        faults.add(Fault.RESTART);
        return faults;
    }

    private static final class Masters extends ServerTarget {
        private final int count;
        private final List<String> serverArgs;
        private final List<RedisServer> servers = new ArrayList<>();

        Masters(String id, String description, String subject, int count, List<String> serverArgs, Set<Fault> faults) {
            super(id, description, subject, false, faults);
            this.count = count;
            this.serverArgs = serverArgs;
        }

        @Override
        public void start() {
            try {
                for (int i = 0; i < count; i++) {
                    servers.add(RedisServer.startEmbedded(serverArgs.toArray(String[]::new)));
                }
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        @Override
        List<InetSocketAddress> addresses() {
            return servers.stream()
                    .map(s -> new InetSocketAddress(s.host(), s.port()))
                    .toList();
        }

        @Override
        String uri(List<InetSocketAddress> through) {
            return (count == 1 ? "redis://" : "redlock://") + hostPorts(through);
        }

        @Override
        public void hitServer(Fault fault, Random random) throws InterruptedException {
            if (fault != Fault.RESTART) {
                super.hitServer(fault, random);
            }
            RedisServer victim = servers.get(random.nextInt(servers.size()));
            victim.kill();
            Thread.sleep(DOWNTIME.toMillis()); // the outage itself
            victim.restart();
        }

        @Override
        public void close() {
            servers.forEach(RedisServer::close);
            servers.clear();
        }
    }
}
