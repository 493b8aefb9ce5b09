package dev.baton.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.baton.servers.PostgresServer;
import dev.baton.servers.RedisServer;
import dev.baton.servers.ZooKeeperServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Consumer;
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
 * lease times. Renewal round trips are counted over that window: on Redis at the server, script
 * calls ({@code INFO commandstats}, EVAL and EVALSHA: both clients renew with scripts, and nothing
 * else runs a script meanwhile); on PostgreSQL the Baton client's renewal calls ({@link
 * CountingBackend}: one UPDATE statement of up to 100 rows each, more only if a row was lost).
 * CPU is this JVM's, proxy included, over the window, per lease per renewal interval. Heap per
 * lease is the used heap after a full GC at the end of the window (leases held and renewed), minus
 * before taking them, per lease. Redisson's {@code RLock} with its watchdog is the peer row on Redis.
 * On ZooKeeper the session is the lease: the Baton client's renewal calls are counted ({@link
 * CountingBackend}: one {@code exists} round trip on the session each, whatever the number of
 * grants due). {@code --leases 0} skips the held-leases rows.
 *
 * <p>With {@code --names N} (see {@link DistinctNames}), each backend also runs N distinct names
 * through one client, each acquired and released once, and reports the client's heap after that
 * against its heap before: per-name state that outlives its lock would show there.
 */
public final class LeaseScaleBench {
    /** Script calls (commands a script runs count under their own names, not here). */
    private static final Pattern REDIS_SCRIPT_CALLS = Pattern.compile("cmdstat_eval(?:sha)?:calls=(\\d+)");

    /** The backends scenario M knows. */
    public static final List<String> BACKENDS = List.of("redis", "postgres", "zookeeper");

    private LeaseScaleBench() {}

    /** What to run: on each backend, each lease count, held for {@code periods} lease times. */
    public record Settings(List<String> backends, List<Integer> counts, Duration latency, Duration lease, int periods) {
        public Settings {
            for (String backend : backends) {
                if (!BACKENDS.contains(backend)) {
                    throw new IllegalArgumentException("unknown backend '" + backend + "'; known: " + BACKENDS);
                }
            }
            backends = List.copyOf(backends);
            // No rows for 0: "--leases 0 --names N" measures the names alone.
            counts = counts.stream().filter(count -> count > 0).toList();
        }
    }

    /** One row of the result. */
    public record Row(
            String backend,
            String subject,
            int leases,
            Duration latency,
            Duration held,
            long lost,
            double roundTripsPer100LeasesPerInterval,
            double cpuMicrosPerLeaseInterval,
            long heapBytesPerLease) {}

    public static void main(String[] args) throws Exception {
        BenchArgs options =
                BenchArgs.parse(args, "--backends", "--leases", "--latency", "--lease", "--periods", "--names");
        List<String> backends = options.list("--backends", List.of("redis"));
        List<Integer> counts = options.counts("--leases", List.of(1000, 10_000));
        Duration latency = options.duration("--latency", Duration.ofMillis(1));
        Duration lease = options.duration("--lease", Duration.ofSeconds(30));
        int periods = options.count("--periods", 3);
        int names = options.count("--names", 0);
        Settings settings = new Settings(backends, counts, latency, lease, periods);
        if (!settings.counts().isEmpty()) {
            List<Row> rows = run(settings, System.out::println);
            System.out.println();
            System.out.print(table(settings, rows));
        }
        if (names > 0) {
            List<DistinctNames.Result> results = DistinctNames.run(backends, names, System.out::println);
            System.out.println();
            System.out.print(DistinctNames.table(results));
        }
    }

    /** Runs every backend of {@code settings} on embedded servers; {@code progress} hears each step. */
    public static List<Row> run(Settings settings, Consumer<String> progress) throws Exception {
        List<Row> rows = new ArrayList<>();
        if (settings.counts().isEmpty()) {
            return rows;
        }
        for (String backend : settings.backends()) {
            switch (backend) {
                case "redis" -> rows.addAll(redis(settings, progress));
                case "postgres" -> rows.addAll(postgres(settings, progress));
                case "zookeeper" -> rows.addAll(zookeeper(settings, progress));
                default -> throw new IllegalArgumentException("unknown backend " + backend);
            }
        }
        return rows;
    }

    /** The result as one Markdown table, with what each column counts. */
    public static String table(Settings settings, List<Row> rows) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT,
                "Scenario M: one client holds N leases (lease %s) for %d lease times behind %s of added"
                        + " round-trip latency%n%n",
                BenchMain.format(settings.lease()),
                settings.periods(),
                BenchMain.format(settings.latency())));
        out.append("| backend | subject | leases | latency | hold time | lost | renewal round trips per 100 leases"
                + " per interval | client CPU per lease-interval | heap per lease |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %,d | %s | %s | %,d | %.2f | %.1f µs | %,d B |%n",
                    row.backend(),
                    row.subject(),
                    row.leases(),
                    BenchMain.format(row.latency()),
                    BenchMain.format(row.held()),
                    row.lost(),
                    row.roundTripsPer100LeasesPerInterval(),
                    row.cpuMicrosPerLeaseInterval(),
                    row.heapBytesPerLease()));
        }
        out.append(String.format(
                Locale.ROOT,
                "%nRound trips: Redis, script calls (EVAL/EVALSHA) at the server; PostgreSQL, the client's renewal"
                        + " calls (one UPDATE of up to 100 rows each); ZooKeeper, the client's renewal calls (one"
                        + " exists on the session each). Interval = lease / 3.%n"));
        return out.toString();
    }

    private static List<Row> redis(Settings settings, Consumer<String> progress) throws Exception {
        Duration lease = settings.lease();
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
                Window window = new Window(proxy, commands, settings, progress);
                for (int count : settings.counts()) {
                    rows.add(window.measure("redis", LeaseHolder.baton("baton", viaProxy, lease), count));
                    rows.add(window.measure("redis", LeaseHolder.redisson(viaProxy, lease), count));
                }
            } finally {
                direct.shutdown();
            }
        }
        return rows;
    }

    private static List<Row> postgres(Settings settings, Consumer<String> progress) throws Exception {
        Duration lease = settings.lease();
        List<Row> rows = new ArrayList<>();
        try (PostgresServer server = PostgresServer.start();
                LatencyProxy proxy = LatencyProxy.start(new InetSocketAddress(server.host(), server.port()))) {
            String viaProxy = withCredentials(
                    server, server.jdbcUrl().replace(server.host() + ":" + server.port(), "127.0.0.1:" + proxy.port()));
            Window window = new Window(proxy, null, settings, progress);
            for (int count : settings.counts()) {
                rows.add(window.measure("postgres", LeaseHolder.baton("baton table", viaProxy, lease), count));
            }
        }
        return rows;
    }

    private static List<Row> zookeeper(Settings settings, Consumer<String> progress) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (ZooKeeperServer server = ZooKeeperServer.start();
                LatencyProxy proxy = LatencyProxy.start(server.address(0))) {
            // The session outlives a paused renewal by the lease time, as the lease would.
            String viaProxy = "zookeeper://127.0.0.1:" + proxy.port() + "/scale?sessionTimeout="
                    + settings.lease().toMillis() + "ms";
            Window window = new Window(proxy, null, settings, progress);
            for (int count : settings.counts()) {
                rows.add(window.measure("zookeeper", LeaseHolder.baton("baton", viaProxy, settings.lease()), count));
            }
        }
        return rows;
    }

    /** {@code jdbcUrl} with the server's user and password as URL parameters. */
    static String withCredentials(PostgresServer server, String jdbcUrl) {
        return jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "user="
                + URLEncoder.encode(server.user(), StandardCharsets.UTF_8) + "&password="
                + URLEncoder.encode(server.password(), StandardCharsets.UTF_8);
    }

    /**
     * The measured window: the proxy adds the latency for {@code periods} lease times while {@code
     * serverCount} counts renewal round trips on the server (null: the holder counts its own calls).
     */
    private record Window(LatencyProxy proxy, LongSupplier serverCount, Settings settings, Consumer<String> progress) {

        Row measure(String backend, LeaseHolder holder, int count) throws InterruptedException {
            try (holder) {
                String prefix = "scale-" + UUID.randomUUID() + "-";
                List<String> names = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    names.add(prefix + i);
                }
                Duration lease = settings.lease();
                progress.accept(backend + " " + holder.name() + ": taking " + count + " leases");
                long heapBefore = usedHeapAfterGc();
                holder.acquire(names);

                progress.accept(backend + " " + holder.name() + ": holding " + count + " leases for "
                        + settings.periods() + " x " + BenchMain.format(lease));
                LongSupplier roundTrips = serverCount != null ? serverCount : holder::renewalCalls;
                proxy.roundTrip(settings.latency());
                OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
                long counted = roundTrips.getAsLong();
                long cpu = os.getProcessCpuTime();
                long start = System.nanoTime();
                // A measurement window, not a synchronisation: the leases renew themselves meanwhile.
                Thread.sleep(lease.multipliedBy(settings.periods()).toMillis());
                long elapsed = System.nanoTime() - start;
                cpu = os.getProcessCpuTime() - cpu;
                counted = roundTrips.getAsLong() - counted;
                proxy.roundTrip(Duration.ZERO);
                // With the leases held and renewed for a while: what steady holding costs.
                long heapHeld = usedHeapAfterGc();
                long lost = holder.invalid();
                holder.releaseAll();
                double intervals = elapsed / (double) lease.dividedBy(3).toNanos();
                return new Row(
                        backend,
                        holder.name(),
                        count,
                        settings.latency(),
                        lease.multipliedBy(settings.periods()),
                        lost,
                        counted / intervals / (count / 100.0),
                        cpu / 1000.0 / intervals / count,
                        Math.max(0, heapHeld - heapBefore) / count);
            }
        }
    }

    /** The used heap after three full collections. */
    static long usedHeapAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
