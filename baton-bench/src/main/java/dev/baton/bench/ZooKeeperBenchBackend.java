package dev.baton.bench;

import dev.baton.LockOptions;
import dev.baton.servers.ZooKeeperServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * ZooKeeper rows: Baton's queue lock, Apache Curator's InterProcessMutex, and a raw baseline (create
 * an ephemeral node, delete it; a waiter watches the node), all on one server in one run. The
 * semaphore rows: Baton's semaphore and Curator's InterProcessSemaphoreV2.
 */
final class ZooKeeperBenchBackend implements BenchBackend {
    static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .operationTimeout(Duration.ofSeconds(10))
            .build();
    private static final int SESSION_MILLIS = 10_000;

    private final boolean protocols;
    private ZooKeeperServer server;

    private ZooKeeperBenchBackend(boolean protocols) {
        this.protocols = protocols;
    }

    static BenchBackend create() {
        return new ZooKeeperBenchBackend(false);
    }

    /**
     * The protocol floors ({@link ZooKeeperProtocolSubjects}: Baton's and Curator's queue protocols on
     * the bare client) beside Baton, Curator's mutex and the raw baseline, all in one run.
     */
    static BenchBackend protocols() {
        return new ZooKeeperBenchBackend(true);
    }

    @Override
    public String id() {
        return protocols ? "zookeeper-protocols" : "zookeeper";
    }

    @Override
    public List<LockSubject> start(String externalUri) {
        String connect;
        if (externalUri != null) {
            String rest = externalUri.substring(externalUri.indexOf("://") + 3);
            int end = rest.indexOf('/') >= 0 ? rest.indexOf('/') : rest.indexOf('?');
            connect = end >= 0 ? rest.substring(0, end) : rest;
        } else {
            server = ZooKeeperServer.start();
            connect = server.connectString();
        }
        String uri = "zookeeper://" + connect + "/bench?sessionTimeout=" + SESSION_MILLIS + "ms";
        if (protocols) {
            List<LockSubject> subjects =
                    new java.util.ArrayList<>(ZooKeeperProtocolSubjects.subjects(connect, SESSION_MILLIS));
            subjects.add(BatonSubject.of("baton zookeeper", uri, OPTIONS));
            subjects.add(new CuratorSubject("curator InterProcessMutex", connect, false));
            subjects.add(new CuratorSubject("raw create+delete", connect, true));
            return subjects;
        }
        return List.of(
                BatonSubject.of("baton zookeeper", uri, OPTIONS),
                new CuratorSubject("curator InterProcessMutex", connect, false),
                new CuratorSubject("raw create+delete", connect, true));
    }

    @Override
    public PlannedSubjects plannedSubjects(boolean external) {
        // The protocol subjects are records that connect only in newClient(): listing them is free.
        int probes = protocols
                ? ZooKeeperProtocolSubjects.subjects("", SESSION_MILLIS).size()
                : 0;
        return new PlannedSubjects(probes + 3, 1, 2);
    }

    @Override
    public String consistencyModel() {
        return "ZAB quorum, session-bound ephemeral nodes";
    }

    @Override
    public String waiterNotification() {
        return "watch on the predecessor node";
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }

    /**
     * Curator's mutex, or the raw baseline, each client with its own Curator connection. Curator's
     * semaphore rows use {@code InterProcessSemaphoreV2(client, path, permits)}: {@code acquire()},
     * then {@code Lease.close()}.
     */
    private static final class CuratorSubject implements LockSubject {
        private final String name;
        private final String connect;
        private final boolean raw;

        CuratorSubject(String name, String connect, boolean raw) {
            this.name = name;
            this.connect = connect;
            this.raw = raw;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean hasSemaphores() {
            return !raw;
        }

        @Override
        public String semaphoreName() {
            return "curator InterProcessSemaphoreV2";
        }

        @Override
        public Client newClient() {
            CuratorFramework curator = CuratorFrameworkFactory.builder()
                    .connectString(connect)
                    .namespace("bench")
                    .sessionTimeoutMs(SESSION_MILLIS)
                    .connectionTimeoutMs(10_000)
                    .retryPolicy(new ExponentialBackoffRetry(20, 5))
                    .build();
            curator.start();
            try {
                if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
                    curator.close();
                    throw new IllegalStateException("ZooKeeper at " + connect + " did not accept a connection in 30 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                curator.close();
                throw new IllegalStateException("interrupted while connecting to ZooKeeper at " + connect, e);
            }
            Map<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();
            Map<String, InterProcessSemaphoreV2> semaphores = new ConcurrentHashMap<>();
            return new Client() {
                @Override
                public Held acquire(String lockName) {
                    try {
                        return raw ? rawAcquire(curator, "/raw/" + lockName) : curatorAcquire(lockName);
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new IllegalStateException(name + ": acquiring " + lockName + " failed: " + e, e);
                    }
                }

                @Override
                public Held acquirePermit(String semaphoreName, int permits) {
                    InterProcessSemaphoreV2 semaphore = semaphores.computeIfAbsent(
                            semaphoreName,
                            n -> new InterProcessSemaphoreV2(curator, "/curator/semaphores/" + n, permits));
                    Lease lease;
                    try {
                        lease = semaphore.acquire();
                    } catch (Exception e) {
                        throw new IllegalStateException(
                                name + ": acquiring a permit of " + semaphoreName + " failed: " + e, e);
                    }
                    return () -> {
                        try {
                            lease.close();
                        } catch (java.io.IOException e) {
                            throw new IllegalStateException(
                                    name + ": releasing a permit of " + semaphoreName + " failed: " + e, e);
                        }
                    };
                }

                private Held curatorAcquire(String lockName) throws Exception {
                    InterProcessMutex mutex = mutexes.computeIfAbsent(
                            lockName, n -> new InterProcessMutex(curator, "/curator/locks/" + n));
                    mutex.acquire();
                    return () -> {
                        try {
                            mutex.release();
                        } catch (Exception e) {
                            throw new IllegalStateException(name + ": releasing " + lockName + " failed: " + e, e);
                        }
                    };
                }

                @Override
                public void close() {
                    curator.close();
                }
            };
        }

        /** The least a ZooKeeper lock can do: one create, one delete; waiters watch the node. */
        private Held rawAcquire(CuratorFramework curator, String path) throws Exception {
            while (true) {
                try {
                    curator.create()
                            .creatingParentContainersIfNeeded()
                            .withMode(CreateMode.EPHEMERAL)
                            .forPath(path);
                    return () -> {
                        try {
                            curator.delete().forPath(path);
                        } catch (Exception e) {
                            throw new IllegalStateException(name + ": deleting " + path + " failed: " + e, e);
                        }
                    };
                } catch (KeeperException.NodeExistsException e) {
                    CountDownLatch gone = new CountDownLatch(1);
                    if (curator.checkExists()
                                    .usingWatcher((org.apache.zookeeper.Watcher) event -> gone.countDown())
                                    .forPath(path)
                            != null) {
                        gone.await(1, TimeUnit.SECONDS);
                    }
                }
            }
        }
    }
}
