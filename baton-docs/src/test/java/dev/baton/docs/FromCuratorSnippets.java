package dev.baton.docs;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.DistributedSemaphore;
import dev.baton.Leadership;
import dev.baton.Lease;
import dev.baton.LockClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.retry.ExponentialBackoffRetry;

/** The side-by-side code of docs/migration/from-curator.md: Curator first, then Baton. */
class FromCuratorSnippets {

    static CuratorFramework curatorClient() {
        // snippet:start curator-client
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString("zk1:2181,zk2:2181,zk3:2181")
                .namespace("app")
                .sessionTimeoutMs(10_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 5))
                .build();
        curator.start();
        // snippet:end curator-client
        return curator;
    }

    static LockClient batonClient() {
        // snippet:start baton-client
        LockClient client = Baton.connect("zookeeper://zk1:2181,zk2:2181,zk3:2181/app?sessionTimeout=10s");
        // snippet:end baton-client
        return client;
    }

    static void curatorMutex(CuratorFramework curator, Runnable work) throws Exception {
        // snippet:start curator-mutex
        InterProcessMutex mutex = new InterProcessMutex(curator, "/baton/locks/invoice-42");
        if (mutex.acquire(5, TimeUnit.SECONDS)) {
            try {
                work.run();
            } finally {
                mutex.release(); // by the thread that acquired it
            }
        }
        // snippet:end curator-mutex
    }

    static void batonMutex(LockClient client, Runnable work) {
        // snippet:start baton-mutex
        DistributedLock lock = client.lock("invoice-42"); // the same znode path, /app/baton/locks/invoice-42
        try (Lease lease = lock.acquire(Duration.ofSeconds(5))) { // LockTimeoutException after 5 s
            lease.onLost(lost -> stopWork()); // the session was suspended or expired while held
            work.run();
        }
        // snippet:end baton-mutex
    }

    static void curatorSemaphore(CuratorFramework curator, Runnable export) throws Exception {
        // snippet:start curator-semaphore
        InterProcessSemaphoreV2 exports = new InterProcessSemaphoreV2(curator, "/baton/locks/~semaphores/exports", 4);
        org.apache.curator.framework.recipes.locks.Lease permit = exports.acquire(30, TimeUnit.SECONDS);
        if (permit != null) {
            try {
                export.run();
            } finally {
                exports.returnLease(permit);
            }
        }
        // snippet:end curator-semaphore
    }

    static void batonSemaphore(LockClient client, Runnable export) {
        // snippet:start baton-semaphore
        DistributedSemaphore exports = client.semaphore("exports", 4); // Curator's nodes: shared with Curator
        try (Lease permit = exports.acquire(Duration.ofSeconds(30))) {
            export.run();
        }
        // snippet:end baton-semaphore
    }

    static void curatorLatch(CuratorFramework curator, Runnable leaderWork) throws Exception {
        // snippet:start curator-leader
        try (LeaderLatch latch = new LeaderLatch(curator, "/leaders/invoice-scheduler")) {
            latch.start();
            latch.await(); // until elected
            leaderWork.run();
        }
        // snippet:end curator-leader
    }

    static void batonLeader(LockClient client, Runnable leaderWork) throws InterruptedException {
        // snippet:start baton-leader
        try (Leadership leadership = client.leadership("invoice-scheduler").start()) {
            while (!leadership.awaitLeadership(Duration.ofMinutes(1))) {
                // still a candidate
            }
            leaderWork.run(); // hand leadership.epoch() to what the leader writes to
        }
        // snippet:end baton-leader
    }

    private static void stopWork() {}
}
