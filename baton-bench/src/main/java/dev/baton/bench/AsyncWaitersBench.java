package dev.baton.bench;

import dev.baton.servers.EtcdServer;
import dev.baton.servers.PostgresServer;
import dev.baton.servers.RedisServer;
import dev.baton.servers.ZooKeeperServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Scenario W, async waiters: one client with many concurrent waiters over a few names (10,000 over
 * 100 by default) on each backend, on embedded servers, through the asynchronous API and then through
 * the blocking one ({@link WaiterRun}). Per backend and API it reports whether every waiter was
 * granted exactly once and alone, the share of grants made in arrival order, the most Baton threads
 * alive at once, the heap per waiting request, grants per second and CPU per grant.
 *
 * <pre>
 * java -cp ... dev.baton.bench.AsyncWaitersBench --backends redis,zookeeper,etcd,postgres --waiters 10000 --names 100
 * </pre>
 *
 * <p>How each figure is taken. Heap per waiter: the used heap after a full GC with every waiter
 * waiting (each acquisition has started waiting, as the client's listener hears), minus before they
 * were made, per waiter: the client's state for it plus what the bench keeps (its future, or its
 * thread object; a platform thread's stack is not heap). Grants per second and CPU: from the holder's
 * first release to the last waiter's release; CPU is this JVM's, which includes ZooKeeper's server
 * (it runs in-process) but not Redis', PostgreSQL's or etcd's. Baton threads: the JVM's threads named
 * {@code baton-}, both clients' (the holder's too), sampled every 20 ms over the measurement; JVM
 * threads: the JVM's peak of live threads over the measurement, so that threads a library starts
 * under another name (a driver's, a gRPC executor's) and the blocking waiters' own show too.
 */
public final class AsyncWaitersBench {
    /** The backends the scenario knows, in report order. */
    public static final List<String> BACKENDS = List.of("redis", "zookeeper", "etcd", "postgres");

    public static final int DEFAULT_WAITERS = 10_000;
    public static final int DEFAULT_NAMES = 100;

    private AsyncWaitersBench() {}

    /**
     * What to run.
     *
     * @param timeout each acquisition's timeout, and the bound on each step of a run
     */
    public record Settings(List<String> backends, int waiters, int names, Duration timeout) {
        public Settings {
            for (String backend : backends) {
                if (!BACKENDS.contains(backend)) {
                    throw new IllegalArgumentException("unknown backend '" + backend + "'; known: " + BACKENDS);
                }
            }
            if (names < 1 || waiters < names || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("names >= 1, waiters >= names and a positive timeout required: "
                        + waiters + ", " + names + ", " + timeout);
            }
            backends = List.copyOf(backends);
        }

        /** 10,000 waiters over 100 names, each acquisition bounded by 10 minutes. */
        public Settings(List<String> backends) {
            this(backends, DEFAULT_WAITERS, DEFAULT_NAMES, Duration.ofMinutes(10));
        }
    }

    /** One row: a backend through one API. */
    public record Row(String backend, WaiterRun.Result result) {
        public boolean async() {
            return result.api() == WaiterRun.Api.ASYNC;
        }

        public long granted() {
            return result.order().granted();
        }

        /** Waiters granted other than exactly once (0 when every waiter was served once). */
        public long notGrantedOnce() {
            return result.order().notGrantedOnce();
        }

        public long overlaps() {
            return result.order().overlaps();
        }

        public long errors() {
            return result.order().errors();
        }

        public double inOrderShare() {
            return result.order().inOrderShare();
        }

        public int batonThreads() {
            return result.batonThreads();
        }

        /** The most threads of any kind alive at once in the JVM, ZooKeeper's embedded server included. */
        public int jvmThreads() {
            return result.jvmThreads();
        }

        public long heapBytesPerWaiter() {
            return result.heapBytesPerWaiter();
        }

        public double grantsPerSecond() {
            return result.grantsPerSecond();
        }

        public double cpuMicrosPerGrant() {
            return result.cpuMicrosPerGrant();
        }
    }

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(args, "--backends", "--waiters", "--names");
        List<String> backends = options.list("--backends", BACKENDS);
        int waiters = options.count("--waiters", DEFAULT_WAITERS);
        int names = options.count("--names", DEFAULT_NAMES);
        Settings settings = new Settings(backends, waiters, names, Duration.ofMinutes(10));
        List<Row> rows = run(settings, System.out::println);
        System.out.println();
        System.out.print(table(settings, rows));
    }

    /** Runs every backend of {@code settings} on its own embedded server; {@code progress} hears each step. */
    public static List<Row> run(Settings settings, Consumer<String> progress) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (String backend : settings.backends()) {
            switch (backend) {
                case "redis" -> {
                    try (RedisServer server = RedisServer.start()) {
                        rows.addAll(both(backend, server.uri(), settings, progress));
                    }
                }
                case "zookeeper" -> {
                    try (ZooKeeperServer server = ZooKeeperServer.start()) {
                        rows.addAll(both(
                                backend, "zookeeper://" + server.connectString() + "/waiters", settings, progress));
                    }
                }
                case "etcd" -> {
                    try (EtcdServer server = EtcdServer.start()) {
                        rows.addAll(both(backend, server.uri(), settings, progress));
                    }
                }
                case "postgres" -> {
                    try (PostgresServer server = PostgresServer.start()) {
                        String uri = LeaseScaleBench.withCredentials(server, server.jdbcUrl());
                        rows.addAll(both(backend + " (table)", uri, settings, progress));
                    }
                }
                default -> throw new IllegalArgumentException("unknown backend " + backend);
            }
        }
        return rows;
    }

    private static List<Row> both(String backend, String uri, Settings settings, Consumer<String> progress)
            throws InterruptedException {
        List<Row> rows = new ArrayList<>();
        WaiterRun run = new WaiterRun(uri, settings.waiters(), settings.names(), settings.timeout());
        for (WaiterRun.Api api : WaiterRun.Api.values()) {
            progress.accept(String.format(
                    Locale.ROOT,
                    "%s: %,d waiters over %,d names, %s",
                    backend,
                    settings.waiters(),
                    settings.names(),
                    api.label));
            Row row = new Row(backend, run.run(api));
            rows.add(row);
            progress.accept(String.format(
                    Locale.ROOT,
                    "%s, %s: %,d granted, %,d overlaps, %,d errors, %d Baton threads, %,d JVM threads, %,d B per"
                            + " waiter, %,.0f grants/s, %.0f µs CPU per grant",
                    backend,
                    api.label,
                    row.granted(),
                    row.overlaps(),
                    row.errors(),
                    row.batonThreads(),
                    row.jvmThreads(),
                    row.heapBytesPerWaiter(),
                    row.grantsPerSecond(),
                    row.cpuMicrosPerGrant()));
        }
        return rows;
    }

    /** The result as one Markdown table, with what each column counts. */
    public static String table(Settings settings, List<Row> rows) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT,
                "Scenario W: %,d concurrent waiters on one client over %,d names; each granted, held while its"
                        + " grant is recorded, released%n%n",
                settings.waiters(),
                settings.names()));
        out.append("| backend | API | granted once | overlaps | errors | in arrival order | Baton threads (most at"
                + " once) | JVM threads (most at once) | heap per waiter | grants/s | CPU per grant |\n");
        out.append("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            WaiterRun.Result result = row.result();
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %,d of %,d | %d | %d | %.1f %% | %d (%s) | %,d | %,d B | %,.0f | %.0f µs |%n",
                    row.backend(),
                    result.api().label,
                    result.waiters() - row.notGrantedOnce(),
                    result.waiters(),
                    row.overlaps(),
                    row.errors(),
                    row.inOrderShare() * 100,
                    row.batonThreads(),
                    result.batonThreadKinds(),
                    row.jvmThreads(),
                    row.heapBytesPerWaiter(),
                    row.grantsPerSecond(),
                    row.cpuMicrosPerGrant()));
        }
        out.append(String.format(
                Locale.ROOT,
                "%nIn arrival order: grants that went to the earliest waiter of their name still waiting (one client's"
                        + " waiters line up in its local gate in the order they called). Heap: used heap after GC"
                        + " with every waiter waiting, minus before, per waiter. Grants/s and CPU (this JVM, which"
                        + " runs ZooKeeper's server but not the others): from the holder's first release to the last"
                        + " waiter's release. Baton threads: the JVM's threads named baton-, the holder client's included, sampled every 20 ms;"
                        + " JVM threads: the JVM's peak count of live threads, every thread of the process"
                        + " (ZooKeeper's embedded server's and each blocking waiter's) included.%n"));
        return out.toString();
    }
}
