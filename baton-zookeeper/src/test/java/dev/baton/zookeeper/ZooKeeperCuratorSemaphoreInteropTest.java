package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.DistributedSemaphore;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Baton semaphores and Curator's InterProcessSemaphoreV2 on one path share the permits: Curator
 * users point the recipe at {@code <root>/~semaphores/<name>} with the same count.
 */
@Timeout(value = KitTime.TEST_TIMEOUT_SECONDS, unit = TimeUnit.SECONDS)
class ZooKeeperCuratorSemaphoreInteropTest extends CuratorInteropTestBase {

    /** The path Curator users give InterProcessSemaphoreV2 for a Baton semaphore name. */
    static String semaphorePathOf(String name) {
        return "/baton/locks/~semaphores/" + name;
    }

    /** Counts holders of either library inside, and the most at once. */
    static final class Counter {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();

        void hold() {
            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // a hold, for overlap
            inside.decrementAndGet();
        }
    }

    @Test
    void neverMoreThanNHoldersWithBothLibrariesContending() throws Exception {
        String name = "interop-sem-" + UUID.randomUUID();
        int permits = 3;
        int rounds = 10;
        Counter counter = new Counter();
        AtomicInteger batonRounds = new AtomicInteger();
        AtomicInteger curatorRounds = new AtomicInteger();
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            DistributedSemaphore baton = baton().semaphore(name, permits);
            for (int t = 0; t < 2; t++) {
                tasks.add(repeat(rounds, () -> {
                    try (dev.baton.Lease lease = baton.acquire(WAIT)) {
                        counter.hold();
                        batonRounds.incrementAndGet();
                    }
                }));
            }
            CuratorFramework curator = curator();
            for (int t = 0; t < 2; t++) {
                InterProcessSemaphoreV2 semaphore =
                        new InterProcessSemaphoreV2(curator, semaphorePathOf(name), permits);
                tasks.add(repeat(rounds, () -> {
                    Lease lease = semaphore.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    assertThat(lease).as("a Curator lease within %s", WAIT).isNotNull();
                    try {
                        counter.hold();
                        curatorRounds.incrementAndGet();
                    } finally {
                        lease.close();
                    }
                }));
            }
        }
        runAll(tasks, rounds);
        assertThat(counter.most.get()).as("holders at once, both libraries").isBetween(1, permits);
        assertThat(batonRounds.get()).as("Baton rounds").isEqualTo(6 * rounds);
        assertThat(curatorRounds.get()).as("Curator rounds").isEqualTo(6 * rounds);
        CuratorFramework admin = curator();
        assertThat(admin.getChildren().forPath(semaphorePathOf(name) + "/leases"))
                .as("leases left")
                .isEmpty();
        assertThat(admin.getChildren().forPath(semaphorePathOf(name) + "/locks"))
                .as("mutex nodes left")
                .isEmpty();
    }

    @Test
    void eachLibrarysHoldersBlockTheOtherBeyondN() throws Exception {
        String name = "interop-sem-" + UUID.randomUUID();
        CuratorFramework curator = curator();
        InterProcessSemaphoreV2 curatorSemaphore = new InterProcessSemaphoreV2(curator, semaphorePathOf(name), 2);
        DistributedSemaphore baton = baton().semaphore(name, 2);

        // Curator holds both permits: Baton waits until Curator returns one.
        Lease first = curatorSemaphore.acquire(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS);
        Lease second = curatorSemaphore.acquire(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS);
        assertThat(baton.tryAcquire()).as("a third permit for Baton").isEmpty();
        Future<Long> batonWaiter = threads.submit(() -> {
            try (dev.baton.Lease lease = baton.acquire(WAIT)) {
                return lease.fencingToken();
            }
        });
        awaitQueued(curator, semaphorePathOf(name) + "/leases", 3);
        assertThat(curator.getChildren().forPath(semaphorePathOf(name) + "/locks"))
                .as("Baton's waiter holds the semaphore's mutex")
                .singleElement()
                .satisfies(node -> assertThat(node).matches(PROTECTED + "lock-\\d{10}"));
        assertThat(curator.getChildren().forPath(semaphorePathOf(name) + "/leases"))
                .as("Baton's lease node among Curator's")
                .allSatisfy(node -> assertThat(node).matches(PROTECTED + "lease-\\d{10}"));
        first.close();
        assertThat(Await.result(batonWaiter, KitTime.grant())).isPositive();
        second.close();

        // Baton holds both permits: Curator waits until Baton returns one.
        dev.baton.Lease batonFirst = baton.acquire(KitTime.grant());
        dev.baton.Lease batonSecond = baton.acquire(KitTime.grant());
        assertThat(curatorSemaphore.acquire(0, TimeUnit.MILLISECONDS))
                .as("a third permit for Curator")
                .isNull();
        Future<Boolean> curatorWaiter = threads.submit(() -> {
            Lease lease = curatorSemaphore.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (lease == null) {
                return false;
            }
            lease.close();
            return true;
        });
        awaitQueued(curator, semaphorePathOf(name) + "/leases", 3);
        batonFirst.close();
        assertThat(Await.result(curatorWaiter, KitTime.grant())).isTrue();
        batonSecond.close();
        assertThat(curator.getChildren().forPath(semaphorePathOf(name) + "/leases"))
                .isEmpty();
    }
}
