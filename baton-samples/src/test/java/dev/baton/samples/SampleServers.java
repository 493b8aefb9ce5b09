package dev.baton.samples;

import dev.baton.servers.AzuriteServer;
import dev.baton.servers.EtcdServer;
import dev.baton.servers.PostgresServer;
import dev.baton.servers.RedisServer;
import dev.baton.servers.ZooKeeperServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The servers the samples lock on, started here in the driver's JVM (so that baton-servers and its
 * dependencies stay off the samples' class paths) and handed to each sample build as environment
 * variables {@code BATON_SAMPLE_<SERVER>_URI}.
 */
final class SampleServers implements AutoCloseable {

    private final List<AutoCloseable> started = new ArrayList<>();
    private final Map<String, String> environment = new TreeMap<>();

    private SampleServers() {}

    /** Starts PostgreSQL, Redis, ZooKeeper, etcd and Azurite at once; stops those started if one fails. */
    static SampleServers start() {
        SampleServers servers = new SampleServers();
        try {
            CompletableFuture<PostgresServer> postgres = async(PostgresServer::start);
            CompletableFuture<RedisServer> redis = async(RedisServer::start);
            CompletableFuture<ZooKeeperServer> zookeeper = async(ZooKeeperServer::start);
            CompletableFuture<EtcdServer> etcd = async(EtcdServer::start);
            CompletableFuture<AzuriteServer> azurite = async(AzuriteServer::start);
            CompletableFuture.allOf(postgres, redis, zookeeper, etcd, azurite)
                    .exceptionally(e -> null)
                    .join();
            for (CompletableFuture<? extends AutoCloseable> server :
                    List.of(postgres, redis, zookeeper, etcd, azurite)) {
                if (!server.isCompletedExceptionally()) {
                    servers.started.add(server.join());
                }
            }
            PostgresServer pg = postgres.join();
            servers.environment.put(
                    "BATON_SAMPLE_POSTGRES_URI",
                    pg.jdbcUrl() + "?user=" + encode(pg.user()) + "&password=" + encode(pg.password()));
            servers.environment.put("BATON_SAMPLE_REDIS_URI", redis.join().uri());
            servers.environment.put(
                    "BATON_SAMPLE_ZOOKEEPER_URI",
                    "zookeeper://" + zookeeper.join().connectString() + "/samples");
            servers.environment.put("BATON_SAMPLE_ETCD_URI", etcd.join().uri());
            servers.environment.put("BATON_SAMPLE_AZURE_URI", azurite.join().uri("samples"));
            return servers;
        } catch (RuntimeException | Error e) {
            servers.close();
            throw e;
        }
    }

    private static <T> CompletableFuture<T> async(Supplier<T> start) {
        return CompletableFuture.supplyAsync(start);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** The variables every sample build gets: one server URI each. */
    Map<String, String> environment() {
        return environment;
    }

    @Override
    public void close() {
        for (AutoCloseable server : started) {
            try {
                server.close();
            } catch (Exception e) {
                System.err.println("stopping " + server + " failed: " + e);
            }
        }
        started.clear();
    }
}
