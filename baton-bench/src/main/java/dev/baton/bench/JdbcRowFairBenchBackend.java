package dev.baton.bench;

import dev.baton.servers.DatabaseServer;
import dev.baton.servers.H2Server;
import dev.baton.servers.MariaDbServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fair hand-off on H2 and MariaDB (docs/design/fair-handoff.md), for {@link BenchMain} only: Baton's table
 * strategy fair and barging ({@code fair=false}, in every scenario, so that A8
 * compares too) beside ShedLock's JDBC provider (db time), on one server. H2 is in-process (its TCP
 * server in the bench JVM: client CPU includes the server's); MariaDB's server CPU is its mariadbd
 * ({@link CpuSample#watch}).
 */
final class JdbcRowFairBenchBackend implements BenchBackend {
    private final boolean h2;
    private DatabaseServer server;

    private JdbcRowFairBenchBackend(boolean h2) {
        this.h2 = h2;
    }

    static JdbcRowFairBenchBackend h2() {
        return new JdbcRowFairBenchBackend(true);
    }

    static JdbcRowFairBenchBackend mariadb() {
        return new JdbcRowFairBenchBackend(false);
    }

    @Override
    public String id() {
        return h2 ? "h2-fair" : "mariadb-fair";
    }

    @Override
    public List<LockSubject> start(String externalUri) {
        if (externalUri != null) {
            throw new IllegalArgumentException(id() + " starts its own server");
        }
        List<LockSubject> subjects = new ArrayList<>();
        String uri;
        String and;
        if (h2) {
            server = H2Server.start();
            uri = server.jdbcUrl() + ";USER=" + server.user() + ";PASSWORD=" + server.password();
            and = ";";
        } else {
            MariaDbServer mariadb = MariaDbServer.start();
            server = mariadb;
            CpuSample.watch(mariadb.pid());
            uri = server.jdbcUrl() + "?user=" + URLEncoder.encode(server.user(), StandardCharsets.UTF_8) + "&password="
                    + URLEncoder.encode(server.password(), StandardCharsets.UTF_8);
            and = "&";
        }
        subjects.add(BatonSubject.of("baton table", uri, JdbcBenchBackends.OPTIONS));
        subjects.add(BatonSubject.of("baton table barging", uri + and + "fair=false", JdbcBenchBackends.OPTIONS));
        if (!h2) {
            // MariaDB's other strategies, so that one run covers every strategy of the dialect.
            subjects.add(BatonSubject.of(
                    "baton pessimistic", uri + and + "strategy=pessimistic", JdbcBenchBackends.OPTIONS));
            subjects.add(BatonSubject.of("baton advisory", uri + and + "strategy=advisory", JdbcBenchBackends.OPTIONS));
        }
        subjects.add(new ShedLockSubject(server.jdbcUrl(), server.user(), server.password()));
        return subjects;
    }

    @Override
    public PlannedSubjects plannedSubjects(boolean external) {
        return h2 ? new PlannedSubjects(3, 2, 2) : new PlannedSubjects(5, 4, 4);
    }

    @Override
    public String consistencyModel() {
        return "single database (ACID row)";
    }

    @Override
    public String waiterNotification() {
        return "the release hands the lock to the head of the line; an heir in this JVM is woken at once,"
                + " others poll 1-20 ms";
    }

    @Override
    public void close() {
        if (server != null) {
            if (server instanceof MariaDbServer mariadb) {
                CpuSample.unwatch(mariadb.pid());
            }
            server.close();
        }
    }
}
