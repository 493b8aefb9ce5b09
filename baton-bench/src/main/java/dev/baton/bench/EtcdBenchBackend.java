package dev.baton.bench;

import dev.baton.LockOptions;
import dev.baton.servers.EtcdServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * etcd rows: Baton's queue lock, jetcd's built-in Lock service (the server's v3lock, one etcd lease
 * per acquiring thread kept alive by jetcd), and a raw baseline (a transaction that puts the key if
 * absent, a delete; a waiter watches the key's delete), all on one etcd member in one run.
 */
final class EtcdBenchBackend implements BenchBackend {
    static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .operationTimeout(Duration.ofSeconds(10))
            .build();
    /** TTL of the peers' leases, as Baton's lease time maps to one. */
    private static final long TTL_SECONDS = 30;

    private EtcdServer server;

    static BenchBackend create() {
        return new EtcdBenchBackend();
    }

    @Override
    public String id() {
        return "etcd";
    }

    @Override
    public List<LockSubject> start(String externalUri) {
        String endpoints;
        if (externalUri != null) {
            String rest = externalUri.substring(externalUri.indexOf("://") + 3);
            int end = rest.indexOf('/') >= 0 ? rest.indexOf('/') : rest.indexOf('?');
            endpoints = end >= 0 ? rest.substring(0, end) : rest;
        } else {
            if (!EtcdServer.installed()) {
                throw new IllegalStateException(
                        "etcd is not installed; install it with: " + EtcdServer.INSTALL_COMMAND + " (as root)");
            }
            server = EtcdServer.start();
            endpoints = server.endpoints();
        }
        return List.of(
                BatonSubject.of("baton etcd", "etcd://" + endpoints + "/bench", OPTIONS),
                new JetcdSubject("jetcd Lock service", endpoints, false),
                new JetcdSubject("raw txn put+delete", endpoints, true));
    }

    @Override
    public PlannedSubjects plannedSubjects(boolean external) {
        return new PlannedSubjects(3, 1, 1);
    }

    @Override
    public String consistencyModel() {
        return "Raft quorum, lease-bound keys";
    }

    @Override
    public String waiterNotification() {
        return "watch on the deletes of the two nearest keys ahead";
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }

    /** jetcd's Lock service, or the raw baseline, each client with its own jetcd client. */
    private static final class JetcdSubject implements LockSubject {
        private final String name;
        private final String endpoints;
        private final boolean raw;

        JetcdSubject(String name, String endpoints, boolean raw) {
            this.name = name;
            this.endpoints = endpoints;
            this.raw = raw;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Client newClient() {
            io.etcd.jetcd.Client etcd = io.etcd.jetcd.Client.builder()
                    .endpoints(java.util.Arrays.stream(endpoints.split(","))
                            .map(e -> "http://" + e.trim())
                            .toArray(String[]::new))
                    .build();
            // One lease per acquiring thread: the Lock service names a holder's key by its lease, so
            // two threads on one lease would both hold (as one etcd concurrency session does).
            Map<Thread, Long> leases = new ConcurrentHashMap<>();
            Map<Long, CloseableClient> keepAlives = new ConcurrentHashMap<>();
            return new Client() {
                @Override
                public Held acquire(String lockName) {
                    long lease = leases.computeIfAbsent(Thread.currentThread(), t -> grant(etcd, keepAlives));
                    ByteSequence key = bytes((raw ? "/raw/" : "/jetcd/") + lockName);
                    try {
                        return raw ? rawAcquire(etcd, key, lease) : serviceAcquire(etcd, key, lease);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(name + ": interrupted while acquiring " + lockName, e);
                    } catch (ExecutionException e) {
                        throw new IllegalStateException(
                                name + ": acquiring " + lockName + " failed: " + e.getCause(), e);
                    }
                }

                @Override
                public void close() {
                    keepAlives.values().forEach(CloseableClient::close);
                    etcd.close();
                }
            };
        }

        private static long grant(io.etcd.jetcd.Client etcd, Map<Long, CloseableClient> keepAlives) {
            try {
                long lease = etcd.getLeaseClient()
                        .grant(TTL_SECONDS)
                        .get(30, TimeUnit.SECONDS)
                        .getID();
                keepAlives.put(lease, etcd.getLeaseClient().keepAlive(lease, new StreamObserver<>() {
                    @Override
                    public void onNext(io.etcd.jetcd.lease.LeaseKeepAliveResponse value) {}

                    @Override
                    public void onError(Throwable t) {}

                    @Override
                    public void onCompleted() {}
                }));
                return lease;
            } catch (Exception e) {
                throw new IllegalStateException("granting an etcd lease failed: " + e, e);
            }
        }

        private Held serviceAcquire(io.etcd.jetcd.Client etcd, ByteSequence name, long lease)
                throws InterruptedException, ExecutionException {
            ByteSequence key = etcd.getLockClient().lock(name, lease).get().getKey();
            return () -> {
                try {
                    etcd.getLockClient().unlock(key).get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(this.name + ": interrupted while releasing", e);
                } catch (ExecutionException e) {
                    throw new IllegalStateException(this.name + ": releasing failed: " + e.getCause(), e);
                }
            };
        }

        /** The least an etcd lock can do: put the key if absent, delete it; a waiter watches its delete. */
        private Held rawAcquire(io.etcd.jetcd.Client etcd, ByteSequence key, long lease)
                throws InterruptedException, ExecutionException {
            while (true) {
                TxnResponse put = etcd.getKVClient()
                        .txn()
                        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                        .Then(Op.put(
                                key,
                                bytes("raw"),
                                PutOption.builder().withLeaseId(lease).build()))
                        .commit()
                        .get();
                if (put.isSucceeded()) {
                    return () -> {
                        try {
                            etcd.getKVClient().delete(key).get();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException(name + ": interrupted while releasing", e);
                        } catch (ExecutionException e) {
                            throw new IllegalStateException(name + ": releasing failed: " + e.getCause(), e);
                        }
                    };
                }
                CountDownLatch gone = new CountDownLatch(1);
                WatchOption option = WatchOption.builder()
                        .withRevision(put.getHeader().getRevision() + 1)
                        .withNoPut(true)
                        .build();
                try (Watch.Watcher watcher = etcd.getWatchClient().watch(key, option, response -> gone.countDown())) {
                    gone.await(1, TimeUnit.SECONDS);
                }
            }
        }

        private static ByteSequence bytes(String text) {
            return ByteSequence.from(text, StandardCharsets.UTF_8);
        }
    }
}
