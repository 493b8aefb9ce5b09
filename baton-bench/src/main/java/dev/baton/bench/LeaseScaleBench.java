package dev.baton.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.baton.servers.PostgresServer;
import dev.baton.servers.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Scenario M: one client holds N leases for a few lease periods behind a link that adds latency,
 * and the bench reports how many it lost, what renewal cost in round trips, CPU and heap.
 *
 * <pre>
 * java -cp ... dev.baton.bench.LeaseScaleBench --backends redis,postgres --leases 1000,10000,100000
 *     [--latency 1ms] [--lease 30s] [--periods 3]
 * </pre>
 *
 * <p>How each figure is taken: the leases are taken with no added latency, then the proxy ({@link
 * LatencyProxy}, in this JVM) adds {@code --latency} to every round trip for {@code --periods}
 * lease times. Round trips are counted on the server over that window: script calls (Redis {@code
 * INFO commandstats}, EVAL and EVALSHA: both clients renew with scripts) or transactions committed
 * (PostgreSQL {@code pg_stat_database}, which also counts the bench's own reads of it). CPU is this JVM's, proxy included, over the
 * window. Heap per lease is the used heap after a full GC at the end of the window (leases held
 * and renewed), minus before taking them, per lease. Redisson's {@code RLock} with its watchdog is the peer row on Redis.
 */
public final class LeaseScaleBench {
    /** Script calls (commands a script runs count under their own names, not here). */
    private static final Pattern REDIS_SCRIPT_CALLS = Pattern.compile("cmdstat_eval(?:sha)?:calls=(\\d+)");

    private LeaseScaleBench() {}

    /** One row of the result. */
    record Row(
            String backend,
            String subject,
            int leases,
            long lost,
            double roundTripsPerSecond,
            double roundTripsPer100LeasesPerInterval,
            double cpuPercent,
            long heapBytesPerLease) {}

    public static void main(String[] args) throws Exception {
        List<String> backends = List.of("redis");
        List<Integer> counts = List.of(1000, 10_000);
        Duration latency = Duration.ofMillis(1);
        Duration lease = Duration.ofSeconds(30);
        int periods = 3;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--backends" -> backends = Arrays.asList(value.split(","));
                case "--leases" -> counts =
                        Arrays.stream(value.split(",")).map(Integer::valueOf).toList();
                case "--latency" -> latency = BenchMain.parse(value);
                case "--lease" -> lease = BenchMain.parse(value);
                case "--periods" -> periods = Integer.parseInt(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        List<Row> rows = new ArrayList<>();
        for (String backend : backends) {
            switch (backend) {
                case "redis" -> rows.addAll(redis(counts, latency, lease, periods));
                case "postgres" -> rows.addAll(postgres(counts, latency, lease, periods));
                default -> throw new IllegalArgumentException(
                        "unknown backend '" + backend + "'; known: redis, postgres");
            }
        }
        System.out.println();
        System.out.println("Scenario M: one client holds N leases for " + periods + " lease times of " + lease
                + " behind " + latency + " of added round-trip latency");
        System.out.println();
        System.out.println(
                "| backend | subject | leases | lost | renewal round trips/s | per 100 leases per interval | client CPU | heap per lease |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|");
        for (Row row : rows) {
            System.out.printf(
                    "| %s | %s | %d | %d | %.1f | %.2f | %.1f %% | %d B |%n",
                    row.backend(),
                    row.subject(),
                    row.leases(),
                    row.lost(),
                    row.roundTripsPerSecond(),
                    row.roundTripsPer100LeasesPerInterval(),
                    row.cpuPercent(),
                    row.heapBytesPerLease());
        }
    }

    private static List<Row> redis(List<Integer> counts, Duration latency, Duration lease, int periods)
            throws Exception {
        List<Row> rows = new ArrayList<>();
        try (RedisServer server = RedisServer.start();
                LatencyProxy proxy = LatencyProxy.start(new InetSocketAddress(server.host(), server.port()))) {
            RedisClient direct = RedisClient.create(server.uri());
            try (StatefulRedisConnection<String, String> stats = direct.connect()) {
                LongSupplier commands = () -> {
                    Matcher matcher = REDIS_SCRIPT_CALLS.matcher(stats.sync().info("commandstats"));
                    long calls = 0;
                    while (matcher.find()) {
                        calls += Long.parseLong(matcher.group(1));
                    }
                    return calls;
                };
                String viaProxy = "redis://127.0.0.1:" + proxy.port();
                Window window = new Window(proxy, commands, latency, lease, periods);
                for (int count : counts) {
                    rows.add(window.measure("redis", LeaseHolder.baton("baton", viaProxy, lease), count));
                    rows.add(window.measure("redis", LeaseHolder.redisson(viaProxy, lease), count));
                }
            } finally {
                direct.shutdown();
            }
        }
        return rows;
    }

    private static List<Row> postgres(List<Integer> counts, Duration latency, Duration lease, int periods)
            throws Exception {
        List<Row> rows = new ArrayList<>();
        try (PostgresServer server = PostgresServer.start();
                LatencyProxy proxy = LatencyProxy.start(new InetSocketAddress(server.host(), server.port()));
                Connection stats = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password())) {
            LongSupplier commits = () -> {
                try (Statement statement = stats.createStatement()) {
                    // Statistics are flushed now and then; clear the snapshot so each read is fresh.
                    statement.execute("SELECT pg_stat_clear_snapshot()");
                    try (ResultSet rs = statement.executeQuery(
                            "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) {
                        return rs.next() ? rs.getLong(1) : 0;
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException("cannot read pg_stat_database", e);
                }
            };
            String viaProxy = server.jdbcUrl().replace(server.host() + ":" + server.port(), "127.0.0.1:" + proxy.port())
                    + (server.jdbcUrl().contains("?") ? "&" : "?") + "user="
                    + URLEncoder.encode(server.user(), StandardCharsets.UTF_8) + "&password="
                    + URLEncoder.encode(server.password(), StandardCharsets.UTF_8);
            Window window = new Window(proxy, commits, latency, lease, periods);
            for (int count : counts) {
                rows.add(window.measure("postgres", LeaseHolder.baton("baton table", viaProxy, lease), count));
            }
        }
        return rows;
    }

    /**
     * The measured window: the proxy adds {@code latency} for {@code periods} lease times while
     * {@code roundTrips} counts on the server.
     */
    private record Window(LatencyProxy proxy, LongSupplier roundTrips, Duration latency, Duration lease, int periods) {

        Row measure(String backend, LeaseHolder holder, int count) throws InterruptedException {
            try (holder) {
                String prefix = "scale-" + UUID.randomUUID() + "-";
                List<String> names = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    names.add(prefix + i);
                }
                System.out.println(backend + " " + holder.name() + ": taking " + count + " leases");
                long heapBefore = usedHeapAfterGc();
                holder.acquire(names);

                System.out.println(backend + " " + holder.name() + ": holding them for " + periods + " x " + lease);
                proxy.roundTrip(latency);
                OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
                long counted = roundTrips.getAsLong();
                long cpu = os.getProcessCpuTime();
                long start = System.nanoTime();
                // A measurement window, not a synchronisation: the leases renew themselves meanwhile.
                Thread.sleep(lease.multipliedBy(periods).toMillis());
                long elapsed = System.nanoTime() - start;
                cpu = os.getProcessCpuTime() - cpu;
                counted = roundTrips.getAsLong() - counted;
                proxy.roundTrip(Duration.ZERO);
                // With the leases held and renewed for a while: what steady holding costs.
                long heapHeld = usedHeapAfterGc();
                long lost = holder.invalid();
                holder.releaseAll();
                double seconds = elapsed / 1e9;
                double intervals = elapsed / (double) lease.dividedBy(3).toNanos();
                return new Row(
                        backend,
                        holder.name(),
                        count,
                        lost,
                        counted / seconds,
                        counted / intervals / (count / 100.0),
                        100.0 * cpu / elapsed,
                        Math.max(0, heapHeld - heapBefore) / count);
            }
        }
    }

    private static long usedHeapAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
