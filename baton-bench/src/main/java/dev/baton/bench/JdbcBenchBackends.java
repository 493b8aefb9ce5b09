package dev.baton.bench;

import dev.baton.LockOptions;
import dev.baton.servers.DatabaseServer;
import dev.baton.servers.H2Server;
import dev.baton.servers.MariaDbServer;
import dev.baton.servers.PostgresServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The JDBC backends. On PostgreSQL every Baton strategy runs side by side with ShedLock's
 * JdbcTemplateLockProvider (db time), a raw INSERT ... ON CONFLICT DO NOTHING + DELETE baseline and
 * a raw pg_try_advisory_lock + pg_advisory_unlock baseline and the blocking pg_advisory_lock
 * floor of a fair hand-off ({@link BlockingAdvisorySubject}), all on the same server in one run. H2
 * runs the table strategy, MariaDB the table and pessimistic ones. The table strategy also runs with
 * {@code fair=false} ("barging"), so one run shows what fair hand-off costs in pairs/s beside what
 * it gives in share to another client.
 */
final class JdbcBenchBackends {
    private JdbcBenchBackends() {}

    static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .pollInitialDelay(Duration.ofMillis(1))
            .pollMaxDelay(Duration.ofMillis(20))
            .build();

    static BenchBackend h2() {
        return new ServerBackend("h2", new BenchBackend.PlannedSubjects(2, 1, 1, 1), H2Server::start, server -> {
            String uri = server.jdbcUrl() + ";USER=" + server.user() + ";PASSWORD=" + server.password();
            return List.of(
                    BatonSubject.of("baton table", uri, OPTIONS),
                    BatonSubject.barging("baton table barging", uri + ";fair=false", OPTIONS));
        });
    }

    static BenchBackend postgres() {
        return new ServerBackend(
                "postgres", new BenchBackend.PlannedSubjects(8, 3, 3, 1), PostgresServer::start, server -> {
                    // An embedded PostgreSQL detaches from this JVM: name its postmaster so that its
                    // CPU and its backends' count as server CPU.
                    if (server instanceof PostgresServer postgres && !postgres.external()) {
                        CpuSample.watch(postgres.pid());
                    }
                    String uri = withCredentials(server);
                    List<LockSubject> subjects = new ArrayList<>();
                    subjects.add(BatonSubject.of("baton table", uri, OPTIONS));
                    subjects.add(BatonSubject.barging("baton table barging", uri + "&fair=false", OPTIONS));
                    subjects.add(BatonSubject.of("baton pessimistic", uri + "&strategy=pessimistic", OPTIONS));
                    subjects.add(BatonSubject.of("baton advisory", uri + "&strategy=advisory", OPTIONS));
                    subjects.add(new ShedLockSubject(server.jdbcUrl(), server.user(), server.password()));
                    subjects.add(JdbcRawSubjects.insertDelete(server.jdbcUrl(), server.user(), server.password()));
                    subjects.add(JdbcRawSubjects.advisory(server.jdbcUrl(), server.user(), server.password()));
                    // The fair floor: waiters queue in the server's lock manager, as Baton's advisory ones do.
                    subjects.add(new BlockingAdvisorySubject(server.jdbcUrl(), server.user(), server.password()));
                    return subjects;
                });
    }

    /**
     * Issue #27 item 3 in one short run: Baton's advisory strategy beside the raw pairs and its own
     * statements sent bare ({@link BareAdvisorySubjects}).
     */
    static BenchBackend postgresAdvisory() {
        return new ServerBackend(
                "postgres-advisory", new BenchBackend.PlannedSubjects(6, 1, 1, 0), PostgresServer::start, server -> {
                    if (server instanceof PostgresServer postgres && !postgres.external()) {
                        CpuSample.watch(postgres.pid());
                    }
                    List<LockSubject> subjects = new ArrayList<>();
                    subjects.add(
                            BatonSubject.of("baton advisory", withCredentials(server) + "&strategy=advisory", OPTIONS));
                    subjects.add(JdbcRawSubjects.advisory(server.jdbcUrl(), server.user(), server.password()));
                    subjects.add(new BlockingAdvisorySubject(server.jdbcUrl(), server.user(), server.password()));
                    subjects.addAll(BareAdvisorySubjects.of(server.jdbcUrl(), server.user(), server.password()));
                    return subjects;
                });
    }

    static BenchBackend mariadb() {
        return new ServerBackend(
                "mariadb", new BenchBackend.PlannedSubjects(3, 2, 2, 1), MariaDbServer::start, server -> {
                    String uri = withCredentials(server);
                    return List.of(
                            BatonSubject.of("baton table", uri, OPTIONS),
                            BatonSubject.barging("baton table barging", uri + "&fair=false", OPTIONS),
                            BatonSubject.of("baton pessimistic", uri + "&strategy=pessimistic", OPTIONS));
                });
    }

    private static String withCredentials(DatabaseServer server) {
        return server.jdbcUrl() + "?user=" + URLEncoder.encode(server.user(), StandardCharsets.UTF_8) + "&password="
                + URLEncoder.encode(server.password(), StandardCharsets.UTF_8);
    }

    private static final class ServerBackend implements BenchBackend {
        /** An external server: only Baton's default strategy, reached by the given URI. */
        private static final PlannedSubjects EXTERNAL = new PlannedSubjects(1, 1, 1);

        private final String id;
        private final PlannedSubjects planned;
        private final Supplier<DatabaseServer> starter;
        private final Function<DatabaseServer, List<LockSubject>> subjectsOf;
        private DatabaseServer server;

        ServerBackend(
                String id,
                PlannedSubjects planned,
                Supplier<DatabaseServer> starter,
                Function<DatabaseServer, List<LockSubject>> subjectsOf) {
            this.id = id;
            this.planned = planned;
            this.starter = starter;
            this.subjectsOf = subjectsOf;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public List<LockSubject> start(String externalUri) {
            if (externalUri != null) {
                return List.of(BatonSubject.of("baton table", externalUri, OPTIONS));
            }
            server = starter.get();
            return subjectsOf.apply(server);
        }

        @Override
        public PlannedSubjects plannedSubjects(boolean external) {
            return external ? EXTERNAL : planned;
        }

        @Override
        public String consistencyModel() {
            return "single database (ACID row)";
        }

        @Override
        public String waiterNotification() {
            return switch (id) {
                case "postgres" -> "table: NOTIFY to one waiting client; pessimistic: row-lock queue;"
                        + " advisory: pg_advisory_lock queue";
                case "mariadb" -> "table: poll with backoff; pessimistic: row-lock queue; advisory: GET_LOCK queue";
                default -> "poll with backoff";
            };
        }

        @Override
        public void close() {
            if (server != null) {
                if (server instanceof PostgresServer postgres && !postgres.external()) {
                    CpuSample.unwatch(postgres.pid());
                }
                server.close();
            }
        }
    }
}
