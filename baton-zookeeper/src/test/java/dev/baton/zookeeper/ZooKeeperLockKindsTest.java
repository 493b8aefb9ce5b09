package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;
import dev.baton.Lease;
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
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Both lock kinds on one name: a plain lock ({@code lock(name)}, Curator mutex nodes) and a
 * read/write lock ({@code readWriteLock(name)}, Curator read/write nodes) exclude each other among
 * Baton clients, because Baton orders every node by its sequence number and treats every node but a
 * read node as exclusive. Curator's recipes know the nodes of their own kind only.
 */
@Timeout(value = KitTime.TEST_TIMEOUT_SECONDS, unit = TimeUnit.SECONDS)
class ZooKeeperLockKindsTest extends CuratorInteropTestBase {

    @Test
    void aPlainLockAndAReadWriteLockOfOneNameExcludeEachOther() throws Exception {
        String name = "kinds-" + UUID.randomUUID();
        DistributedLock plain = baton().lock(name);
        DistributedReadWriteLock readWrite = baton().readWriteLock(name);
        CuratorFramework curator = curator();

        Lease held = plain.acquire(KitTime.grant());
        assertThat(readWrite.writeLock().tryAcquire())
                .as("writer behind a plain holder")
                .isEmpty();
        assertThat(readWrite.readLock().tryAcquire())
                .as("reader behind a plain holder")
                .isEmpty();
        Future<Long> writer = threads.submit(() -> {
            try (Lease write = readWrite.writeLock().acquire(Duration.ofSeconds(20))) {
                assertThat(plain.tryAcquire()).as("plain lock behind a writer").isEmpty();
                return write.fencingToken();
            }
        });
        awaitQueued(curator, pathOf(name), 2);
        assertThat(curator.getChildren().forPath(pathOf(name)))
                .as("one mutex node and one write node in one queue")
                .anySatisfy(node -> assertThat(node).matches(PROTECTED + "lock-\\d{10}"))
                .anySatisfy(node -> assertThat(node).matches(PROTECTED + "__WRIT__\\d{10}"));
        held.close();
        assertThat(Await.result(writer, KitTime.grant())).isGreaterThan(held.fencingToken());

        try (Lease read = readWrite.readLock().acquire(KitTime.grant())) {
            assertThat(plain.tryAcquire()).as("plain lock behind a reader").isEmpty();
        }
    }

    @Test
    void locksOfEveryKindOnOneNameUnderContention() throws Exception {
        String name = "kinds-" + UUID.randomUUID();
        Room room = new Room();
        int rounds = 100;
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            DistributedLock plain = baton().lock(name);
            tasks.add(repeat(rounds, () -> holding(plain, room::write)));
            DistributedLock writer = baton().readWriteLock(name).writeLock();
            tasks.add(repeat(rounds, () -> holding(writer, room::write)));
            DistributedLock reader = baton().readWriteLock(name).readLock();
            tasks.add(repeat(rounds, () -> holding(reader, room::read)));
        }
        runAll(tasks, rounds);
        assertThat(room.violations.get())
                .as("an exclusive holder overlapped another holder (counter at %d of %d)", room.counter, 4L * rounds)
                .isZero();
        assertThat(room.counter).as("increments of 4 x %d rounds", rounds).isEqualTo(4L * rounds);
    }

    /**
     * What the README promises about mixing kinds: Baton waits for Curator holders of either recipe,
     * while each Curator recipe sees only the nodes of its own kind.
     */
    @Test
    void batonSeesCuratorHoldersOfBothRecipesAndEachRecipeSeesOnlyItsOwnKind() throws Exception {
        String name = "kinds-" + UUID.randomUUID();
        InterProcessMutex curatorMutex = new InterProcessMutex(curator(), pathOf(name));
        InterProcessReadWriteLock curatorReadWrite = new InterProcessReadWriteLock(curator(), pathOf(name));
        DistributedLock plain = baton().lock(name);
        DistributedReadWriteLock readWrite = baton().readWriteLock(name);

        holding(curatorMutex, () -> {
            assertThat(readWrite.writeLock().tryAcquire()).isEmpty();
            assertThat(readWrite.readLock().tryAcquire()).isEmpty();
        });
        holding(curatorReadWrite.writeLock(), () -> assertThat(plain.tryAcquire())
                .isEmpty());
        holding(curatorReadWrite.readLock(), () -> assertThat(plain.tryAcquire())
                .isEmpty());

        try (Lease write = readWrite.writeLock().acquire(KitTime.grant())) {
            assertThat(curatorMutex.acquire(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                    .as("Curator's mutex does not know read/write nodes")
                    .isTrue();
            curatorMutex.release();
        }
        try (Lease lock = plain.acquire(KitTime.grant())) {
            assertThat(curatorReadWrite.writeLock().acquire(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                    .as("Curator's read/write lock does not know mutex nodes")
                    .isTrue();
            curatorReadWrite.writeLock().release();
        }
    }
}
