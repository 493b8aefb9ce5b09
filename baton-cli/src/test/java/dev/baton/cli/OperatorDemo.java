package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.Lease;
import dev.baton.LockAdmin;
import dev.baton.LockClient;
import dev.baton.LockInfo;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.servers.EtcdServer;
import dev.baton.servers.PostgresServer;
import dev.baton.servers.RedisServer;
import dev.baton.servers.ZooKeeperServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Not a test: a walk-through for README and the closing note. On real Redis, ZooKeeper, etcd and
 * PostgreSQL servers it puts a lock, a read/write lock, a semaphore and a waiter in place, prints
 * {@code baton locks}, breaks the lock with {@code baton release --force} and shows the broken holder
 * told and the waiter served, then fails a leader over by a forced release and a resignation, with the
 * epochs. Run: {@code java -cp <baton-cli test class path> dev.baton.cli.OperatorDemo}.
 */
public final class OperatorDemo {
    private static final long START = System.nanoTime();

    private OperatorDemo() {}

    public static void main(String[] args) throws Exception {
        List<AutoCloseable> servers = new ArrayList<>();
        try {
            RedisServer redis = RedisServer.start();
            servers.add(redis);
            demo(redis.uri());
            ZooKeeperServer zookeeper = ZooKeeperServer.start();
            servers.add(zookeeper);
            demo("zookeeper://" + zookeeper.connectString() + "/demo?sessionTimeout=3s");
            EtcdServer etcd = EtcdServer.start();
            servers.add(etcd);
            demo(etcd.uri());
            PostgresServer postgres = PostgresServer.start();
            servers.add(postgres);
            demo(postgres.jdbcUrl() + "?user=" + postgres.user() + "&password=" + postgres.password());
        } finally {
            for (AutoCloseable server : servers) {
                server.close();
            }
        }
        System.exit(0);
    }

    private static String at() {
        return String.format("[%6d ms]", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - START));
    }

    private static LockClient client(String uri, String clientName) {
        return Baton.connect(
                uri,
                LockOptions.builder()
                        .clientName(clientName)
                        .leaseTime(Duration.ofSeconds(6))
                        .build());
    }

    private static void run(String... args) {
        System.out.println("$ baton " + String.join(" ", args).replaceAll("password=[^&; ]*", "password=***"));
        CliRun run = CliRun.of(args);
        System.out.print(run.out());
        System.out.print(run.err());
        if (run.exitCode() != 0) {
            System.out.println("(exit " + run.exitCode() + ")");
        }
    }

    private static void demo(String uri) throws Exception {
        System.out.println();
        System.out.println("======== " + uri.replaceAll("password=[^&;]*", "password=***"));
        List<LockClient> clients = new ArrayList<>();
        try {
            LockClient billing = client(uri, "billing");
            LockClient reports = client(uri, "reports");
            LockClient search = client(uri, "search");
            LockClient exports = client(uri, "exports");
            LockClient late = client(uri, "late-runner");
            clients.addAll(List.of(billing, reports, search, exports, late));

            Lease nightly = billing.lock("demo/nightly-report").acquire(KitTime.grant());
            reports.readWriteLock("demo/catalog").readLock().acquire(KitTime.grant());
            search.readWriteLock("demo/catalog").readLock().acquire(KitTime.grant());
            exports.semaphore("demo/exports", 3).acquire(KitTime.grant());
            exports.semaphore("demo/exports", 3).acquire(KitTime.grant());
            CompletableFuture<LockLostException> lost = new CompletableFuture<>();
            nightly.onLost(lost::complete);
            CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(
                    () -> late.lock("demo/nightly-report").acquire(Duration.ofSeconds(30)));
            try (LockAdmin admin = Baton.admin(uri)) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (System.nanoTime() < deadline
                        && admin.status("demo/nightly-report")
                                        .flatMap(info -> info.waiters().isPresent()
                                                ? java.util.Optional.of(
                                                        info.waiters().getAsInt())
                                                : java.util.Optional.of(1))
                                        .orElse(0)
                                < 1) {
                    Thread.sleep(20); // a walk-through, not a test: wait for the waiter to queue
                }
            }
            run("locks", "--uri", uri, "--prefix", "demo/");
            run("status", "--uri", uri, "--json", "demo/nightly-report");
            System.out.println(
                    at() + " billing holds demo/nightly-report with fencing token " + nightly.fencingToken());
            run("release", "--uri", uri, "demo/nightly-report");
            run("release", "--force", "--uri", uri, "demo/nightly-report");
            long brokenAt = System.nanoTime();
            Lease taken = Await.result(waiter, Duration.ofSeconds(30));
            System.out.println(at() + " late-runner (waiting) got demo/nightly-report after "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - brokenAt) + " ms, fencing token "
                    + taken.fencingToken());
            LockLostException told = Await.result(lost, Duration.ofSeconds(10));
            System.out.println(
                    at() + " billing told after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - brokenAt)
                            + " ms: isValid()=" + nightly.isValid() + ", onLost: " + told.getMessage());
            nightly.close();
            System.out.println(
                    at() + " billing's close() after the break left late-runner's lease valid: " + taken.isValid());
            taken.close();
            leaderFailover(uri);
        } finally {
            for (LockClient client : clients) {
                client.close();
            }
        }
    }

    private static void leaderFailover(String uri) throws Exception {
        System.out.println("-- leader failover on demo/leader");
        try (LockClient a = client(uri, "node-a");
                LockClient b = client(uri, "node-b");
                LockAdmin admin = Baton.admin(uri)) {
            java.util.concurrent.BlockingQueue<Long> aElected = new java.util.concurrent.LinkedBlockingQueue<>();
            java.util.concurrent.BlockingQueue<Long> bElected = new java.util.concurrent.LinkedBlockingQueue<>();
            java.util.concurrent.BlockingQueue<Long> aRevoked = new java.util.concurrent.LinkedBlockingQueue<>();
            Leadership first = a.leadership("demo/leader")
                    .addListener(listener("node-a", aElected, aRevoked))
                    .start();
            long epochA = aElected.poll(10, TimeUnit.SECONDS);
            Leadership second = b.leadership("demo/leader")
                    .addListener(listener("node-b", bElected, new java.util.concurrent.LinkedBlockingQueue<>()))
                    .start();
            List<LockInfo> broken = admin.forceRelease("demo/leader");
            System.out.println(at() + " forced release of demo/leader broke epoch "
                    + broken.get(0).fencingToken());
            long epochB = bElected.poll(15, TimeUnit.SECONDS);
            aRevoked.poll(15, TimeUnit.SECONDS);
            second.close();
            long epochA2 = aElected.poll(15, TimeUnit.SECONDS);
            System.out.println(at() + " epochs: node-a " + epochA + " -> node-b " + epochB + " -> node-a " + epochA2);
            first.close();
        }
    }

    private static LeadershipListener listener(
            String node,
            java.util.concurrent.BlockingQueue<Long> elected,
            java.util.concurrent.BlockingQueue<Long> revoked) {
        return new LeadershipListener() {
            @Override
            public void elected(long epoch) {
                System.out.println(at() + " " + node + " elected, epoch " + epoch);
                elected.add(epoch);
            }

            @Override
            public void revoked(long epoch, Reason reason, LockLostException cause) {
                System.out.println(at() + " " + node + " revoked, epoch " + epoch + ", " + reason
                        + (cause == null ? "" : ": " + cause.getMessage()));
                revoked.add(epoch);
            }
        };
    }
}
