package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Baton's plain lock and Apache Curator's InterProcessMutex on the same lock paths: each library's
 * holders exclude the other's, also under contention.
 */
@Timeout(value = KitTime.TEST_TIMEOUT_SECONDS, unit = TimeUnit.SECONDS)
class ZooKeeperCuratorInteropTest extends CuratorInteropTestBase {

    @Test
    void curatorMutexAndBatonLockExcludeEachOtherInBothDirections() throws Exception {
        String name = "interop-" + UUID.randomUUID();
        InterProcessMutex curatorLock = new InterProcessMutex(curator(), pathOf(name));
        LockClient baton = baton();

        curatorLock.acquire();
        assertThat(baton.lock(name).tryAcquire())
                .as("Baton sees Curator's holder")
                .isEmpty();
        curatorLock.release();

        try (Lease lease = baton.lock(name).acquire(KitTime.grant())) {
            InterProcessMutex other = new InterProcessMutex(curator(), pathOf(name));
            assertThat(other.acquire(200, TimeUnit.MILLISECONDS))
                    .as("Curator sees Baton's holder")
                    .isFalse();
            List<String> nodes = curator().getChildren().forPath(pathOf(name));
            assertThat(nodes).singleElement().satisfies(node -> assertThat(node).matches(PROTECTED + "lock-\\d{10}"));
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
        LockClient baton = baton();
        LockClient other = baton();

        long firstToken;
        try (Lease first = baton.lock(name).acquire(KitTime.grant())) {
            firstToken = first.fencingToken();
            assertThat(other.lock(name).tryAcquire()).as("held by the first").isEmpty();
            Future<Long> waiter = threads.submit(() -> {
                try (Lease second = other.lock(name).acquire(Duration.ofSeconds(20))) {
                    return second.fencingToken();
                }
            });
            awaitQueued(curator, pathOf(name), 2);
            first.close();
            assertThat(Await.result(waiter, KitTime.grant())).isGreaterThan(firstToken);
        }
        try (Lease again = baton.lock(name).acquire(KitTime.grant())) {
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
        baton.lock(open).acquire(KitTime.grant()).close();
        assertThat(curator.checkExists().forPath(pathOf(open)).getVersion()).isEqualTo(1);
        try (Lease second = baton.lock(open).acquire(KitTime.grant())) {
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

    @Test
    void mutexUnderContentionFromBothLibraries() throws Exception {
        String name = "interop-" + UUID.randomUUID();
        Room room = new Room();
        int rounds = 100;
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            DistributedLock batonLock = baton().lock(name);
            tasks.add(repeat(rounds, () -> holding(batonLock, room::write)));
            InterProcessMutex curatorLock = new InterProcessMutex(curator(), pathOf(name));
            tasks.add(repeat(rounds, () -> holding(curatorLock, room::write)));
        }
        runAll(tasks, rounds);
        assertThat(room.violations.get())
                .as("overlapping holders (counter at %d of %d)", room.counter, 4L * rounds)
                .isZero();
        assertThat(room.counter).as("increments of 4 x %d rounds", rounds).isEqualTo(4L * rounds);
        assertThat(curator().getChildren().forPath(pathOf(name)))
                .as("no node left")
                .isEmpty();
    }
}
