package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.servers.PostgresServer;
import dev.baton.servers.RedisServer;
import dev.baton.servers.ZooKeeperServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Client heap after many distinct lock names: one Baton client takes and releases N names, each
 * once, and the used heap after a full GC is compared with the heap before. A client that kept
 * anything per name (a local queue, a subscription, a cached key) once its lock is released would
 * grow by that much per name; one that keeps nothing ends where it started, give or take the
 * collector's noise.
 */
public final class DistinctNames {
    private static final int THREADS = 4;
    /** Names taken before the baseline, so that pools, caches and classes are warm by then. */
    private static final int WARM_UP = 10_000;

    private DistinctNames() {}

    /**
     * One measurement.
     *
     * @param heapBefore used heap after GC with the client warm and nothing held
     * @param heapAfter used heap after GC once every name was taken and released
     */
    public record Result(String backend, int names, Duration took, long heapBefore, long heapAfter) {
        public double bytesPerName() {
            return (heapAfter - heapBefore) / (double) names;
        }
    }

    /** Runs {@code names} distinct names through one client of {@code uri}. */
    private static Result run(String backend, String uri, int names, Consumer<String> progress) throws Exception {
        LockOptions options =
                LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build();
        try (LockClient client = Baton.open(Baton.backend(uri, options), options)) {
            String prefix = "names-" + UUID.randomUUID() + "-";
            takeEach(client, prefix + "warm-", WARM_UP);
            long before = LeaseScaleBench.usedHeapAfterGc();
            progress.accept(backend + ": " + String.format(Locale.ROOT, "%,d", names) + " distinct names, " + THREADS
                    + " threads, each name taken and released once");
            long start = System.nanoTime();
            takeEach(client, prefix, names);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            long after = LeaseScaleBench.usedHeapAfterGc();
            return new Result(backend, names, took, before, after);
        }
    }

    /**
     * Runs {@code names} distinct names on each of {@code backends} ({@link LeaseScaleBench#BACKENDS}),
     * each on its own embedded server, with no added latency.
     */
    public static List<Result> run(List<String> backends, int names, Consumer<String> progress) throws Exception {
        List<Result> results = new ArrayList<>();
        for (String backend : backends) {
            switch (backend) {
                case "redis" -> {
                    try (RedisServer server = RedisServer.start()) {
                        results.add(run(backend, server.uri(), names, progress));
                    }
                }
                case "postgres" -> {
                    try (PostgresServer server = PostgresServer.start()) {
                        results.add(run(
                                backend, LeaseScaleBench.withCredentials(server, server.jdbcUrl()), names, progress));
                    }
                }
                case "zookeeper" -> {
                    try (ZooKeeperServer server = ZooKeeperServer.start()) {
                        results.add(run(backend, "zookeeper://" + server.connectString() + "/names", names, progress));
                    }
                }
                default -> throw new IllegalArgumentException("unknown backend " + backend);
            }
        }
        return results;
    }

    /** The results as a Markdown table. */
    public static String table(List<Result> results) {
        StringBuilder out = new StringBuilder(
                "| backend | distinct names | took | per second | heap before | heap after | after - before per name |\n"
                        + "|---|---:|---:|---:|---:|---:|---:|\n");
        for (Result result : results) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %,d | %s | %,.0f | %,.1f MB | %,.1f MB | %.2f B |%n",
                    result.backend(),
                    result.names(),
                    BenchMain.format(result.took().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)),
                    result.names() / (result.took().toNanos() / 1e9),
                    result.heapBefore() / 1e6,
                    result.heapAfter() / 1e6,
                    result.bytesPerName()));
        }
        return out.toString();
    }

    private static void takeEach(LockClient client, String prefix, int names) throws Exception {
        AtomicLong next = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(threads.submit(() -> {
                    for (long i = next.getAndIncrement(); i < names; i = next.getAndIncrement()) {
                        try (Lease lease = client.lock(prefix + i).acquire(Duration.ofSeconds(30))) {
                            lease.checkValid();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
