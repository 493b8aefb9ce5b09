package dev.baton.bench;

import dev.baton.LockOptions;
import dev.baton.servers.DatabaseServer;
import dev.baton.servers.H2Server;
import dev.baton.servers.PostgresServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/** The JDBC backends: Baton's table strategy on H2 and on PostgreSQL. */
final class JdbcBenchBackends {
    private JdbcBenchBackends() {}

    static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .pollInitialDelay(Duration.ofMillis(1))
            .pollMaxDelay(Duration.ofMillis(20))
            .build();

    static BenchBackend h2() {
        return new ServerBackend(
                "h2",
                H2Server::start,
                server -> server.jdbcUrl() + ";USER=" + server.user() + ";PASSWORD=" + server.password());
    }

    static BenchBackend postgres() {
        return new ServerBackend(
                "postgres",
                PostgresServer::start,
                server -> server.jdbcUrl() + "?user="
                        + URLEncoder.encode(server.user(), StandardCharsets.UTF_8) + "&password="
                        + URLEncoder.encode(server.password(), StandardCharsets.UTF_8));
    }

    private static final class ServerBackend implements BenchBackend {
        private final String id;
        private final Supplier<DatabaseServer> starter;
        private final java.util.function.Function<DatabaseServer, String> uriOf;
        private DatabaseServer server;

        ServerBackend(
                String id,
                Supplier<DatabaseServer> starter,
                java.util.function.Function<DatabaseServer, String> uriOf) {
            this.id = id;
            this.starter = starter;
            this.uriOf = uriOf;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public List<LockSubject> start(String externalUri) {
            String uri;
            if (externalUri != null) {
                uri = externalUri;
            } else {
                server = starter.get();
                uri = uriOf.apply(server);
            }
            return List.of(BatonSubject.of("baton table", uri, OPTIONS));
        }

        @Override
        public String consistencyModel() {
            return "single database (ACID row)";
        }

        @Override
        public String waiterNotification() {
            return "poll with backoff";
        }

        @Override
        public void close() {
            if (server != null) {
                server.close();
            }
        }
    }
}
