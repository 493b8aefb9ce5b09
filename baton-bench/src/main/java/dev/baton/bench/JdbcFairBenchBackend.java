package dev.baton.bench;

import dev.baton.jdbc.listen.PendingCheckSocketFactory;
import dev.baton.servers.PostgresServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The fair hand-off probe ({@code FAIR-HANDOFF.md}), for {@link BenchMain} only: on one embedded
 * PostgreSQL, the protocol's raw-JDBC subjects ({@link JdbcFairHandOffSubjects}) beside Baton's table
 * strategy fair and barging ({@code fair=false}, here in every scenario, so that A8 compares too),
 * Baton's optimistic strategy fair, Baton's fair strategies with {@link PendingCheckSocketFactory}
 * on their connections (pgjdbc's {@code socketFactory}, passed through Baton's URL), ShedLock, the raw advisory pair and the fair floor (blocking
 * {@code pg_advisory_lock}: {@link BlockingAdvisorySubject}). Server CPU counts the
 * postmaster and its backends ({@link CpuSample#watch}).
 */
final class JdbcFairBenchBackend implements BenchBackend {
    private static final String PENDING_CHECK = "&socketFactory=" + PendingCheckSocketFactory.class.getName();
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
        return List.of(
                JdbcFairHandOffSubjects.table(protoUrl, server.user(), server.password()),
                JdbcFairHandOffSubjects.optimistic(protoUrl, server.user(), server.password()),
                JdbcFairHandOffSubjects.tableInRow(protoUrl, server.user(), server.password()),
                BatonSubject.of("baton table", uri, JdbcBenchBackends.OPTIONS),
                BatonSubject.of("baton table barging", uri + "&fair=false", JdbcBenchBackends.OPTIONS),
                BatonSubject.of("baton optimistic", uri + "&strategy=optimistic", JdbcBenchBackends.OPTIONS),
                // Today's Baton with only its connections' sockets changed (the listener's among them):
                // what the pending-check fix alone gives its notified wake-ups.
                BatonSubject.of("baton table, pending-check sockets", uri + PENDING_CHECK, JdbcBenchBackends.OPTIONS),
                BatonSubject.of(
                        "baton optimistic, pending-check sockets",
                        uri + "&strategy=optimistic" + PENDING_CHECK,
                        JdbcBenchBackends.OPTIONS),
                new ShedLockSubject(url, server.user(), server.password()),
                JdbcRawSubjects.advisory(url, server.user(), server.password()),
                new BlockingAdvisorySubject(url, server.user(), server.password()));
    }

    @Override
    public PlannedSubjects plannedSubjects(boolean external) {
        return new PlannedSubjects(11, 5, 5);
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
