package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.DistributedReadWriteLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.tck.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Baton and Apache Curator's recipes (curator-recipes) on the same lock paths: each library's holders
 * exclude the other's, under contention, for the mutex and for the read/write lock.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ZooKeeperCuratorInteropTest extends OneServerTestBase {
    private static final String NAMESPACE = "interop";
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(10))
            .operationTimeout(Duration.ofSeconds(5))
            .build();

    private LockClient baton(String params) {
        LockClient client =
                Baton.connect("zookeeper://" + server.connectString() + "/" + NAMESPACE + "?" + params, OPTIONS);
        resources.add(client);
        return client;
    }

    private CuratorFramework curator() throws InterruptedException {
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(server.connectString())
                .namespace(NAMESPACE)
                .sessionTimeoutMs(10_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new ExponentialBackoffRetry(50, 5))
                .build();
        curator.start();
        resources.add(curator);
        assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return curator;
    }

    /** The path Curator users give their recipes for a Baton lock name. */
    private static String pathOf(String name) {
        return "/baton/locks/" + name;
    }

    /** Counts holders inside; fails on a forbidden overlap. */
    private static final class Room {
        final AtomicInteger writers = new AtomicInteger();
        final AtomicInteger readers = new AtomicInteger();
        final AtomicInteger violations = new AtomicInteger();
        final AtomicInteger maxReaders = new AtomicInteger();
        long counter; // guarded only by the locks under test

        void write() {
            if (writers.incrementAndGet() > 1 || readers.get() > 0) {
                violations.incrementAndGet();
            }
            long seen = counter;
            Thread.yield();
            counter = seen + 1;
            writers.decrementAndGet();
        }

        void read() {
            int inside = readers.incrementAndGet();
            maxReaders.accumulateAndGet(inside, Math::max);
            if (writers.get() > 0) {
                violations.incrementAndGet();
            }
            Thread.yield();
            readers.decrementAndGet();
        }
    }

    private void runAll(List<Callable<Void>> tasks) throws Exception {
        List<Future<Void>> done = new ArrayList<>();
        for (Callable<Void> task : tasks) {
            done.add(threads.submit(task));
        }
        for (Future<Void> future : done) {
            future.get(80, TimeUnit.SECONDS);
        }
    }

    @Test
    void curatorMutexAndBatonLockExcludeEachOtherInBothDirections() throws Exception {
        String name = "interop-" + UUID.randomUUID();
        InterProcessMutex curatorLock = new InterProcessMutex(curator(), pathOf(name));
        LockClient baton = baton("sessionTimeout=10s");

        curatorLock.acquire();
        assertThat(baton.lock(name).tryAcquire())
                .as("Baton sees Curator's holder")
                .isEmpty();
        curatorLock.release();

        try (Lease lease = baton.lock(name).acquire(Duration.ofSeconds(5))) {
            InterProcessMutex other = new InterProcessMutex(curator(), pathOf(name));
            assertThat(other.acquire(200, TimeUnit.MILLISECONDS))
                    .as("Curator sees Baton's holder")
                    .isFalse();
            List<String> nodes = curator().getChildren().forPath(pathOf(name));
            assertThat(nodes).singleElement().satisfies(node -> assertThat(node)
                    .matches("_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-lock-\\d{10}"));
        }
    }

    @Test
    void aLockNodeThatMayNotBeWrittenStillQueuesAndHandsOver() throws Exception {
        // Baton enters a queue with a multi that also writes the lock node's data; a lock node made by
        // someone else with create and delete rights only must still work, by listing the queue.
        String name = "interop-" + UUID.randomUUID();
        List<org.apache.zookeeper.data.ACL> createAndDeleteOnly = List.of(new org.apache.zookeeper.data.ACL(
                org.apache.zookeeper.ZooDefs.Perms.READ
                        | org.apache.zookeeper.ZooDefs.Perms.CREATE
                        | org.apache.zookeeper.ZooDefs.Perms.DELETE,
                org.apache.zookeeper.ZooDefs.Ids.ANYONE_ID_UNSAFE));
        CuratorFramework curator = curator();
        curator.create().creatingParentsIfNeeded().withACL(createAndDeleteOnly).forPath(pathOf(name));
        LockClient baton = baton("sessionTimeout=10s");
        LockClient other = baton("sessionTimeout=10s");

        long firstToken;
        try (Lease first = baton.lock(name).acquire(Duration.ofSeconds(5))) {
            firstToken = first.fencingToken();
            assertThat(other.lock(name).tryAcquire()).as("held by the first").isEmpty();
            Future<Long> waiter = threads.submit(() -> {
                try (Lease second = other.lock(name).acquire(Duration.ofSeconds(20))) {
                    return second.fencingToken();
                }
            });
            awaitQueued(curator, pathOf(name), 2);
            first.close();
            assertThat(waiter.get(20, TimeUnit.SECONDS)).isGreaterThan(firstToken);
        }
        try (Lease again = baton.lock(name).acquire(Duration.ofSeconds(5))) {
            assertThat(again.fencingToken()).isGreaterThan(firstToken);
        }
        assertThat(curator.getChildren().forPath(pathOf(name))).isEmpty();
        assertThat(curator.checkExists().forPath(pathOf(name)).getVersion())
                .as("the lock node was never written")
                .isZero();

        // Where the lock node may be written, each entry into the queue is the one multi, which
        // writes it once (and whose stat spares the alone-in-the-queue acquire its listing). The lock
        // node is made persistent here, so that the server's container reaper cannot take it between
        // the acquires (Baton's first acquire of a new name creates it as a container instead).
        String open = "interop-" + UUID.randomUUID();
        curator.create().creatingParentsIfNeeded().forPath(pathOf(open));
        baton.lock(open).acquire(Duration.ofSeconds(5)).close();
        assertThat(curator.checkExists().forPath(pathOf(open)).getVersion()).isEqualTo(1);
        try (Lease second = baton.lock(open).acquire(Duration.ofSeconds(5))) {
            assertThat(curator.checkExists().forPath(pathOf(open)).getVersion()).isEqualTo(2);
            String node = curator.getChildren().forPath(pathOf(open)).get(0);
            assertThat(second.fencingToken())
                    .as("the token is the node's czxid, which the multi's write shares")
                    .isEqualTo(curator.checkExists()
                            .forPath(pathOf(open) + "/" + node)
                            .getCzxid());
        }
        assertThat(curator.getChildren().forPath(pathOf(open))).isEmpty();
    }

    private static void awaitQueued(CuratorFramework curator, String path, int nodes) {
        Await.condition(nodes + " nodes queued", Duration.ofSeconds(10), () -> {
            try {
                return curator.getChildren().forPath(path).size() >= nodes;
            } catch (Exception e) {
                throw new AssertionError("listing " + path + " failed", e);
            }
        });
    }

    @Test
    void mutexUnderContentionFromBothLibraries() throws Exception {
        String name = "interop-" + UUID.randomUUID();
        Room room = new Room();
        int iterations = 40;
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            LockClient client = baton("sessionTimeout=10s");
            tasks.add(() -> {
                for (int n = 0; n < iterations; n++) {
                    try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(60))) {
                        room.write();
                    }
                }
                return null;
            });
            InterProcessMutex mutex = new InterProcessMutex(curator(), pathOf(name));
            tasks.add(() -> {
                for (int n = 0; n < iterations; n++) {
                    if (!mutex.acquire(60, TimeUnit.SECONDS)) {
                        throw new AssertionError("Curator did not get the lock in 60 s");
                    }
                    try {
                        room.write();
                    } finally {
                        mutex.release();
                    }
                }
                return null;
            });
        }
        runAll(tasks);
        assertThat(room.violations.get()).as("overlapping holders").isZero();
        assertThat(room.counter).isEqualTo(4L * iterations);
        assertThat(curator().getChildren().forPath(pathOf(name)))
                .as("no node left")
                .isEmpty();
    }

    @Test
    void readWriteLocksUnderContentionFromBothLibraries() throws Exception {
        String name = "interop-rw-" + UUID.randomUUID();
        Room room = new Room();
        int iterations = 30;
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            DistributedReadWriteLock batonLock =
                    baton("sessionTimeout=10s&exclusiveNodes=readwrite").readWriteLock(name);
            InterProcessReadWriteLock curatorLock = new InterProcessReadWriteLock(curator(), pathOf(name));
            tasks.add(() -> {
                for (int n = 0; n < iterations; n++) {
                    try (Lease lease = batonLock.writeLock().acquire(Duration.ofSeconds(60))) {
                        room.write();
                    }
                    try (Lease lease = batonLock.readLock().acquire(Duration.ofSeconds(60))) {
                        room.read();
                    }
                }
                return null;
            });
            tasks.add(() -> {
                for (int n = 0; n < iterations; n++) {
                    curatorLock.writeLock().acquire();
                    try {
                        room.write();
                    } finally {
                        curatorLock.writeLock().release();
                    }
                    curatorLock.readLock().acquire();
                    try {
                        room.read();
                    } finally {
                        curatorLock.readLock().release();
                    }
                }
                return null;
            });
        }
        runAll(tasks);
        assertThat(room.violations.get())
                .as("a writer overlapped another holder")
                .isZero();
        assertThat(room.counter).isEqualTo(4L * iterations);
    }

    @Test
    void readersOfBothLibrariesShareAndWritersOfEachExcludeThem() throws Exception {
        String name = "interop-rw-" + UUID.randomUUID();
        DistributedReadWriteLock batonLock =
                baton("sessionTimeout=10s&exclusiveNodes=readwrite").readWriteLock(name);
        InterProcessReadWriteLock curatorLock = new InterProcessReadWriteLock(curator(), pathOf(name));

        curatorLock.readLock().acquire();
        try (Lease read = batonLock.readLock().acquire(Duration.ofSeconds(5))) {
            assertThat(read.isValid())
                    .as("Baton reader shares with a Curator reader")
                    .isTrue();
            assertThat(baton("sessionTimeout=10s&exclusiveNodes=readwrite")
                            .readWriteLock(name)
                            .writeLock()
                            .tryAcquire())
                    .as("readers of both libraries exclude a Baton writer")
                    .isEmpty();
        } finally {
            curatorLock.readLock().release();
        }

        curatorLock.writeLock().acquire();
        try {
            assertThat(batonLock.readLock().tryAcquire())
                    .as("Curator writer excludes Baton readers")
                    .isEmpty();
        } finally {
            curatorLock.writeLock().release();
        }

        try (Lease write = batonLock.writeLock().acquire(Duration.ofSeconds(5))) {
            InterProcessReadWriteLock other = new InterProcessReadWriteLock(curator(), pathOf(name));
            assertThat(other.readLock().acquire(200, TimeUnit.MILLISECONDS))
                    .as("Baton writer excludes Curator readers")
                    .isFalse();
        }
    }
}
