package dev.baton.check;

import dev.baton.servers.DatabaseServer;
import dev.baton.servers.PostgresServer;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * PostgreSQL targets: Baton's table strategy, and the naive INSERT/DELETE lock on the same kind of
 * server. Runs that restart the server have one of their own; runs that leave it alone each have a
 * database of their own on a server the JVM shares ({@link PostgresServer#sharedDatabase()}), one
 * {@code initdb} and start for them all.
 */
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
        private DatabaseServer database; // what the clients reach
        private PostgresServer server; // the server of its own, for runs that restart it; else null

        Postgres(String id, String description, String subject, Set<Fault> faults) {
            super(id, description, subject, true, faults);
        }

        @Override
        public void start() {
            start(faults());
        }

        @Override
        public void start(Set<Fault> planned) {
            if (planned.contains(Fault.RESTART)) {
                server = PostgresServer.start();
                database = server;
            } else {
                database = PostgresServer.sharedDatabase();
            }
        }

        @Override
        List<InetSocketAddress> addresses() {
            return List.of(new InetSocketAddress(database.host(), database.port()));
        }

        @Override
        String uri(List<InetSocketAddress> through) {
            String jdbcUrl = database.jdbcUrl().replace(database.host() + ":" + database.port(), hostPorts(through));
            return jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?")
                    + "user=" + URLEncoder.encode(database.user(), StandardCharsets.UTF_8)
                    + "&password=" + URLEncoder.encode(database.password(), StandardCharsets.UTF_8)
                    // The embedded server runs with synchronous_commit=off for speed; a kill -9 would then
                    // lose the last commits, which is the server's set-up, not the lock's fault.
                    + "&options=" + URLEncoder.encode("-c synchronous_commit=on", StandardCharsets.UTF_8);
        }

        @Override
        public void hitServer(Fault fault, Random random) throws InterruptedException {
            if (fault != Fault.RESTART) {
                super.hitServer(fault, random);
            }
            if (server == null) {
                throw new IllegalStateException(id() + " runs on the shared PostgreSQL server, started for runs"
                        + " without a server fault; it cannot " + fault.id() + " it");
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
