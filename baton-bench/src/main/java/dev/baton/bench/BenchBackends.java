package dev.baton.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/** Every backend the benchmark knows, by command-line id, in report order. */
public final class BenchBackends {
    private BenchBackends() {}

    public static Map<String, Supplier<BenchBackend>> all() {
        Map<String, Supplier<BenchBackend>> backends = new LinkedHashMap<>();
        backends.put("h2", JdbcBenchBackends::h2);
        backends.put("postgres", JdbcBenchBackends::postgres);
        backends.put("mariadb", JdbcBenchBackends::mariadb);
        backends.put("redis", RedisBenchBackend::new);
        backends.put("zookeeper", ZooKeeperBenchBackend::create);
        backends.put("azure", AzureBenchBackend::new);
        backends.put("etcd", EtcdBenchBackend::create);
        return backends;
    }

    /**
     * {@link #all()} and the probes that measure protocols rather than Baton (for {@link BenchMain}
     * only): {@code zookeeper-protocols}, {@code postgres-fair}, {@code h2-fair}, {@code mariadb-fair}, {@code postgres-advisory}.
     */
    public static Map<String, Supplier<BenchBackend>> withProbes() {
        Map<String, Supplier<BenchBackend>> backends = all();
        backends.put("zookeeper-protocols", ZooKeeperBenchBackend::protocols);
        backends.put("postgres-fair", JdbcFairBenchBackend::new);
        backends.put("h2-fair", JdbcRowFairBenchBackend::h2);
        backends.put("mariadb-fair", JdbcRowFairBenchBackend::mariadb);
        backends.put("postgres-advisory", JdbcBenchBackends::postgresAdvisory);
        return backends;
    }
}
