package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.DistributedReadWriteLock;
import dev.baton.Lease;
import dev.baton.tck.KitTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Baton's read/write lock and Apache Curator's InterProcessReadWriteLock on the same lock paths:
 * writers of either library exclude every other holder, readers of both libraries share, also under
 * contention.
 */
@Timeout(value = KitTime.TEST_TIMEOUT_SECONDS, unit = TimeUnit.SECONDS)
class ZooKeeperCuratorReadWriteInteropTest extends CuratorInteropTestBase {

    @Test
    void aCuratorWriterDoesNotGetTheLockWhileABatonWriterHoldsIt() throws Exception {
        String name = "interop-rw-" + UUID.randomUUID();
        try (Lease lease = baton().readWriteLock(name).writeLock().acquire(KitTime.grant())) {
            boolean got = new InterProcessReadWriteLock(curator(), pathOf(name))
                    .writeLock()
                    .acquire(500, TimeUnit.MILLISECONDS);
            assertThat(got).as("Curator's writer while Baton's writer holds").isFalse();
            assertThat(curator().getChildren().forPath(pathOf(name)))
                    .as("Baton's writer is a Curator write node")
                    .singleElement()
                    .satisfies(node -> assertThat(node).matches(PROTECTED + "__WRIT__\\d{10}"));
        }
    }

    @Test
    void readersOfBothLibrariesShareAndWritersOfEachExcludeThem() throws Exception {
        String name = "interop-rw-" + UUID.randomUUID();
        DistributedReadWriteLock batonLock = baton().readWriteLock(name);
        InterProcessReadWriteLock curatorLock = new InterProcessReadWriteLock(curator(), pathOf(name));

        curatorLock.readLock().acquire();
        try (Lease read = batonLock.readLock().acquire(KitTime.grant())) {
            assertThat(read.isValid())
                    .as("Baton reader shares with a Curator reader")
                    .isTrue();
            assertThat(baton().readWriteLock(name).writeLock().tryAcquire())
                    .as("readers of both libraries exclude a Baton writer")
                    .isEmpty();
            InterProcessReadWriteLock otherCurator = new InterProcessReadWriteLock(curator(), pathOf(name));
            assertThat(otherCurator.writeLock().acquire(200, TimeUnit.MILLISECONDS))
                    .as("readers of both libraries exclude a Curator writer")
                    .isFalse();
        } finally {
            curatorLock.readLock().release();
        }

        curatorLock.writeLock().acquire();
        try {
            assertThat(batonLock.readLock().tryAcquire())
                    .as("Curator writer excludes Baton readers")
                    .isEmpty();
            assertThat(batonLock.writeLock().tryAcquire())
                    .as("Curator writer excludes Baton writers")
                    .isEmpty();
        } finally {
            curatorLock.writeLock().release();
        }

        try (Lease write = batonLock.writeLock().acquire(KitTime.grant())) {
            InterProcessReadWriteLock other = new InterProcessReadWriteLock(curator(), pathOf(name));
            assertThat(other.readLock().acquire(200, TimeUnit.MILLISECONDS))
                    .as("Baton writer excludes Curator readers")
                    .isFalse();
        }
    }

    @Test
    void readWriteLocksUnderContentionFromBothLibraries() throws Exception {
        String name = "interop-rw-" + UUID.randomUUID();
        Room room = new Room();
        int rounds = 100;
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            DistributedReadWriteLock batonWriter = baton().readWriteLock(name);
            tasks.add(repeat(rounds, () -> holding(batonWriter.writeLock(), room::write)));
            DistributedReadWriteLock batonReader = baton().readWriteLock(name);
            tasks.add(repeat(rounds, () -> holding(batonReader.readLock(), room::read)));
            InterProcessReadWriteLock curatorWriter = new InterProcessReadWriteLock(curator(), pathOf(name));
            tasks.add(repeat(rounds, () -> holding(curatorWriter.writeLock(), room::write)));
            InterProcessReadWriteLock curatorReader = new InterProcessReadWriteLock(curator(), pathOf(name));
            tasks.add(repeat(rounds, () -> holding(curatorReader.readLock(), room::read)));
        }
        runAll(tasks, rounds);
        assertThat(room.violations.get())
                .as("a writer overlapped another holder (counter at %d of %d)", room.counter, 4L * rounds)
                .isZero();
        assertThat(room.counter)
                .as("increments of 4 writers x %d rounds", rounds)
                .isEqualTo(4L * rounds);
        assertThat(curator().getChildren().forPath(pathOf(name)))
                .as("no node left")
                .isEmpty();
    }
}
