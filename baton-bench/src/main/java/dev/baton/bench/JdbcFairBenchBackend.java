package dev.baton.bench;

import dev.baton.servers.PostgresServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The fair hand-off probe (docs/design/fair-handoff.md), for {@link BenchMain} only: on one embedded
 * PostgreSQL, Baton's table strategy fair (the hand-off in the release, now in
 * baton-jdbc) and barging ({@code fair=false}, in every scenario, so that A8 compares too), the
 * protocol's raw-JDBC subjects ({@link JdbcFairHandOffSubjects}) and ShedLock. Server CPU counts the
 * postmaster and its backends ({@link CpuSample#watch}).
 */
final class JdbcFairBenchBackend implements BenchBackend {
    private PostgresServer server;

    @Override
    public String id() {
        return "postgres-fair";
    }

    @Override
    public List<LockSubject> start(String externalUri) {
        if (externalUri != null) {
            throw new IllegalArgumentException("postgres-fair starts its own embedded server");
        }
        server = PostgresServer.start();
        CpuSample.watch(server.pid());
        String url = server.jdbcUrl();
        String uri = url + "?user=" + URLEncoder.encode(server.user(), StandardCharsets.UTF_8) + "&password="
                + URLEncoder.encode(server.password(), StandardCharsets.UTF_8);
        // FHO_OPTIONS: server settings for the protocol's sessions only, e.g. "-c plan_cache_mode=...".
        String options = System.getenv("FHO_OPTIONS");
        String protoUrl = options == null
                ? url
                : url + (url.contains("?") ? "&" : "?") + "options="
                        + URLEncoder.encode(options, StandardCharsets.UTF_8);
        // Baton's fair subjects run the hand-off that baton-jdbc now has (HandOff); the protocol's
        // raw-JDBC subjects stay beside them to show what the library adds on top.
        return List.of(
                JdbcFairHandOffSubjects.table(protoUrl, server.user(), server.password()),
                BatonSubject.of("baton table", uri, JdbcBenchBackends.OPTIONS),
                BatonSubject.of("baton table barging", uri + "&fair=false", JdbcBenchBackends.OPTIONS),
                new ShedLockSubject(url, server.user(), server.password()));
    }

    @Override
    public PlannedSubjects plannedSubjects(boolean external) {
        return new PlannedSubjects(4, 2, 2);
    }

    @Override
    public String consistencyModel() {
        return "single database (ACID row)";
    }

    @Override
    public String waiterNotification() {
        return "proto: the release hands the lock to the head of the line and NOTIFYs it with the grant";
    }

    @Override
    public void close() {
        if (server != null) {
            CpuSample.unwatch(server.pid());
            server.close();
        }
    }
}
