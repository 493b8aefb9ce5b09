package dev.baton.bench;

import dev.baton.servers.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.PGConnection;

/**
 * What a NOTIFY costs PostgreSQL (see docs/design/fair-handoff.md): on an embedded server, one
 * connection commits a one-row UPDATE 5,000 times, bare and with a {@code pg_notify} to one channel,
 * while 0, 1 and 8 other connections LISTEN (each on its own channel), and prints latency and server
 * CPU (postmaster and backends, {@link CpuSample#watch}) per statement. PostgreSQL 14 signals every
 * listening backend of the database on each NOTIFY, whatever its channel.
 *
 * <pre>java -cp ... dev.baton.bench.NotifyCostProbe</pre>
 */
public final class NotifyCostProbe {
    private static final int COUNT = 5_000;

    private NotifyCostProbe() {}

    public static void main(String[] args) throws SQLException {
        try (PostgresServer server = PostgresServer.start();
                Connection notifier = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password())) {
            CpuSample.watch(server.pid());
            try (Statement st = notifier.createStatement()) {
                st.execute("CREATE TABLE notify_probe (k INT PRIMARY KEY, v BIGINT)");
                st.execute("INSERT INTO notify_probe VALUES (1, 0)");
            }
            List<Connection> listeners = new ArrayList<>();
            try {
                for (int wanted : new int[] {0, 1, 8, 0, 1, 8}) {
                    while (listeners.size() < wanted) {
                        Connection l = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                        try (Statement st = l.createStatement()) {
                            st.execute("LISTEN probe_" + listeners.size());
                        }
                        listeners.add(l);
                    }
                    while (listeners.size() > wanted) {
                        listeners.remove(listeners.size() - 1).close();
                    }
                    measure(notifier, listeners, "update", "UPDATE notify_probe SET v = v + 1 WHERE k = 1");
                    measure(
                            notifier,
                            listeners,
                            "update + notify",
                            "WITH u AS (UPDATE notify_probe SET v = v + 1 WHERE k = 1 RETURNING v)"
                                    + " SELECT pg_notify('probe_0', v::text) FROM u");
                }
            } finally {
                for (Connection l : listeners) {
                    l.close();
                }
                CpuSample.unwatch(server.pid());
            }
        }
    }

    private static void measure(Connection notifier, List<Connection> listeners, String what, String sql)
            throws SQLException {
        try (PreparedStatement ps = notifier.prepareStatement(sql)) {
            for (int i = 0; i < 200; i++) {
                ps.execute();
            }
            CpuSample before = CpuSample.now();
            long start = System.nanoTime();
            for (int i = 0; i < COUNT; i++) {
                ps.execute();
            }
            long elapsed = System.nanoTime() - start;
            CpuSample after = CpuSample.now();
            if (!listeners.isEmpty()) {
                listeners.get(0).unwrap(PGConnection.class).getNotifications(); // keep its queue short
            }
            System.out.printf(
                    "listeners %d, %-15s: %.0f µs per statement, server CPU %.0f µs per statement%n",
                    listeners.size(), what, elapsed / 1000.0 / COUNT, after.serverNanosSince(before) / 1000.0 / COUNT);
        }
    }
}
