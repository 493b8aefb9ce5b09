package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Baton clients and Curator clients (curator-recipes) on one server and one namespace, so that both
 * libraries see the same lock paths. Baton connects with the URI as the README documents it: servers
 * and chroot, no parameters.
 */
abstract class CuratorInteropTestBase extends OneServerTestBase {
    static final String NAMESPACE = "interop";
    /** The most grants one run here makes: the read/write test's eight tasks of a hundred rounds. */
    static final int LARGEST_RUN = 800;
    /** Bound on one acquisition: a waiter may be passed over for the whole of the largest run. */
    static final Duration WAIT = KitTime.bulkWork(LARGEST_RUN);
    /** A Curator protection prefix: {@code _c_<uuid>-}. */
    static final String PROTECTED = "_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-";

    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(10))
            .operationTimeout(Duration.ofSeconds(5))
            .build();

    LockClient baton() {
        LockClient client = Baton.connect("zookeeper://" + server.connectString() + "/" + NAMESPACE, OPTIONS);
        resources.add(client);
        return client;
    }

    CuratorFramework curator() throws InterruptedException {
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(server.connectString())
                .namespace(NAMESPACE)
                .sessionTimeoutMs(10_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new ExponentialBackoffRetry(50, 5))
                .build();
        curator.start();
        resources.add(curator);
        assertThat(curator.blockUntilConnected((int) KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        return curator;
    }

    /** The path Curator users give their recipes for a Baton lock name. */
    static String pathOf(String name) {
        return "/baton/locks/" + name;
    }

    /** Counts holders inside; counts a forbidden overlap as a violation. */
    static final class Room {
        final AtomicInteger writers = new AtomicInteger();
        final AtomicInteger readers = new AtomicInteger();
        final AtomicInteger violations = new AtomicInteger();
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
            readers.incrementAndGet();
            if (writers.get() > 0) {
                violations.incrementAndGet();
            }
            Thread.yield();
            readers.decrementAndGet();
        }
    }

    @FunctionalInterface
    interface Round {
        void run() throws Exception;
    }

    /** A task that runs {@code round} {@code rounds} times. */
    static Callable<Void> repeat(int rounds, Round round) {
        return () -> {
            for (int i = 0; i < rounds; i++) {
                round.run();
            }
            return null;
        };
    }

    /** Runs {@code section} holding a Baton lock. */
    static void holding(DistributedLock lock, Runnable section) {
        try (Lease lease = lock.acquire(WAIT)) {
            section.run();
        }
    }

    /** Runs {@code section} holding a Curator lock (a mutex or either side of a read/write lock). */
    static void holding(InterProcessMutex lock, Runnable section) throws Exception {
        if (!lock.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("Curator did not get the lock within " + WAIT);
        }
        try {
            section.run();
        } finally {
            lock.release();
        }
    }

    void runAll(List<Callable<Void>> tasks, int rounds) throws Exception {
        List<Future<Void>> done = new ArrayList<>();
        for (Callable<Void> task : tasks) {
            done.add(threads.submit(task));
        }
        Duration run = KitTime.bulkWork(tasks.size() * rounds);
        for (Future<Void> future : done) {
            Await.result(future, run);
        }
    }

    static void awaitQueued(CuratorFramework curator, String path, int nodes) {
        Await.condition(nodes + " nodes queued", KitTime.grant(), () -> {
            try {
                return curator.getChildren().forPath(path).size() >= nodes;
            } catch (Exception e) {
                throw new AssertionError("listing " + path + " failed", e);
            }
        });
    }
}
