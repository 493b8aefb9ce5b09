package dev.baton.check;

import dev.baton.servers.PostgresServer;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;

/** PostgreSQL targets: Baton's table strategy, and the naive INSERT/DELETE lock on the same server. */
final class DatabaseTargets {
    /** How long a restarted PostgreSQL stays down. */
    static final Duration DOWNTIME = Duration.ofSeconds(1);

    private DatabaseTargets() {}

    static CheckTarget postgres() {
        return new Postgres(
                "postgres",
                "Baton, PostgreSQL table strategy",
                "baton",
                Set.of(Fault.KILL, Fault.PAUSE, Fault.CUT, Fault.BLACKHOLE, Fault.RESTART));
    }

    static CheckTarget naiveRow() {
        // Its flaw is the crash: a paused holder only makes the others wait, which is no violation.
        return new Postgres(
                "naive-row", "naive INSERT/DELETE lock on PostgreSQL, no expiry", "naive-row", Set.of(Fault.KILL));
    }

    private static final class Postgres extends ServerTarget {
        private PostgresServer server;

        Postgres(String id, String description, String subject, Set<Fault> faults) {
            super(id, description, subject, true, faults);
        }

        @Override
        public void start() {
            server = PostgresServer.start();
        }

        @Override
        List<InetSocketAddress> addresses() {
            return List.of(new InetSocketAddress(server.host(), server.port()));
        }

        @Override
        String uri(List<InetSocketAddress> through) {
            String jdbcUrl = server.jdbcUrl().replace(server.host() + ":" + server.port(), hostPorts(through));
            return jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?")
                    + "user=" + URLEncoder.encode(server.user(), StandardCharsets.UTF_8)
                    + "&password=" + URLEncoder.encode(server.password(), StandardCharsets.UTF_8)
                    // The embedded server runs with synchronous_commit=off for speed; a kill -9 would then
                    // lose the last commits, which is the server's set-up, not the lock's fault.
                    + "&options=" + URLEncoder.encode("-c synchronous_commit=on", StandardCharsets.UTF_8);
        }

        @Override
        public void hitServer(Fault fault, Random random) throws InterruptedException {
            if (fault != Fault.RESTART) {
                super.hitServer(fault, random);
            }
            server.kill();
            Thread.sleep(DOWNTIME.toMillis()); // the outage itself
            server.restart();
        }

        @Override
        public void close() {
            if (server != null) {
                server.close();
            }
        }
    }
}
