package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockLostException;
import dev.baton.LockTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * The kit's multi-lock suite ({@link LockBackendContract.MultiLocks}), on every backend: clients that
 * take overlapping sets of names in random orders never deadlock and never overlap on a name; an
 * acquisition is all or nothing; one lease releases every member; the loss of the members is the
 * loss of the whole.
 */
abstract class MultiLockProperty {
    /** Sets each client takes in turn: forty sets of two or three of five names among eight clients. */
    private static final int SETS = 5;

    private final LockBackendContract contract;

    MultiLockProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    @Test
    void eightClientsTakingOverlappingSetsInRandomOrdersNeitherDeadlockNorOverlap() throws Exception {
        int names = 5;
        List<String> pool = new ArrayList<>();
        for (int i = 0; i < names; i++) {
            pool.add(contract.lockName() + "-" + i);
        }
        AtomicIntegerArray inside = new AtomicIntegerArray(names);
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        long seed = System.nanoTime();
        List<Future<Object>> clients = new ArrayList<>();
        for (int c = 0; c < 8; c++) {
            LockClient client = contract.client();
            Random random = new Random(seed + c);
            clients.add(contract.inThread(() -> {
                for (int i = 0; i < SETS; i++) {
                    List<Integer> picked = new ArrayList<>(List.of(0, 1, 2, 3, 4));
                    Collections.shuffle(picked, random);
                    picked = picked.subList(0, 2 + random.nextInt(2));
                    List<String> set = new ArrayList<>();
                    for (int index : picked) {
                        set.add(pool.get(index));
                    }
                    // Without limit: a deadlock would hang here until the wait below runs out.
                    try (Lease lease =
                            client.multiLock(set.toArray(String[]::new)).acquire()) {
                        for (int index : picked) {
                            if (inside.incrementAndGet(index) > 1) {
                                overlaps.incrementAndGet();
                            }
                        }
                        Thread.yield();
                        for (int index : picked) {
                            inside.decrementAndGet(index);
                        }
                    }
                    done.incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<Object> client : clients) {
            // Eight clients, SETS sets each of up to three members, each member a grant.
            Await.result(client, KitTime.bulkWork(8 * SETS * 3));
        }
        assertThat(overlaps.get()).as("two holders of one name (seed %d)", seed).isZero();
        assertThat(done.get()).isEqualTo(8 * SETS);
    }

    @Test
    void anAcquisitionIsAllOrNothingAndOneLeaseReleasesEveryMember() {
        String base = contract.lockName();
        String a = base + "-a";
        String b = base + "-b";
        String c = base + "-c";
        LockClient client = contract.client();
        LockClient other = contract.client();
        DistributedLock multi = client.multiLock(c, a, b);
        assertThat(multi.name()).contains(a).contains(b).contains(c);
        assertThat(multi.name().indexOf(a)).isLessThan(multi.name().indexOf(b));

        Lease heldB = other.lock(b).acquire(contract.grant());
        assertThatThrownBy(() -> multi.acquire(Duration.ofMillis(200)))
                .isInstanceOf(LockTimeoutException.class)
                .hasMessageContaining(b);
        assertThat(multi.tryAcquire()).isEmpty();
        for (String name : List.of(a, c)) {
            other.lock(name)
                    .tryAcquire()
                    .orElseThrow(() -> new AssertionError(name + " was left held"))
                    .close();
        }
        heldB.close();

        Lease lease = multi.acquire(contract.grant());
        assertThat(lease.members()).extracting(Lease::name).containsExactly(a, b, c);
        assertThat(lease.fencingToken()).isEqualTo(lease.members().get(0).fencingToken());
        assertThat(lease.isValid()).isTrue();
        for (String name : List.of(a, b, c)) {
            assertThat(other.lock(name).tryAcquire()).as("%s is held", name).isEmpty();
        }
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        lease.close();
        assertThat(lease.isValid()).isFalse();
        for (String name : List.of(a, b, c)) {
            other.lock(name)
                    .tryAcquire()
                    .orElseThrow(() -> new AssertionError(name + " was not released"))
                    .close();
        }
    }

    @Test
    void theLockViewIsReentrantAndUnlocksEveryMember() {
        String base = contract.lockName();
        LockClient client = contract.client();
        DistributedLock multi = client.multiLock(base + "-x", base + "-y");
        multi.lock();
        try {
            assertThat(client.lock(base + "-x").tryLock())
                    .as("a member is reentrant")
                    .isTrue();
            client.lock(base + "-x").unlock();
            assertThat(multi.holdCount()).isEqualTo(1);
        } finally {
            multi.unlock();
        }
        assertThat(multi.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(multi::unlock).isInstanceOf(IllegalMonitorStateException.class);
        LockClient other = contract.client();
        other.lock(base + "-y").tryAcquire().orElseThrow().close();
    }

    @Test
    void unrenewedMembersLapsingAreReportedOnceAsTheLossOfTheWhole() {
        String base = contract.lockName();
        // A short lease (or the backend's shortest): only its running out is waited for.
        Duration leaseTime = contract.lease(Duration.ofMillis(500));
        LockClient client = contract.client(contract.options().toBuilder()
                .autoRenew(false)
                .leaseTime(leaseTime)
                .build());
        Lease lease = client.multiLock(base + "-1", base + "-2").acquire(contract.grant());
        AtomicInteger reports = new AtomicInteger();
        lease.onLost(lost -> reports.incrementAndGet());
        Duration bound = leaseTime.plus(KitTime.SLACK);
        Await.condition("the multi-lock's lease to be reported lost", bound, () -> reports.get() > 0);
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(lease::checkValid)
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("multi-lock");
        lease.close();
        assertThat(reports.get()).as("one report for the whole set").isEqualTo(1);
    }

    @Test
    void badSetsAreRefused() {
        LockClient client = contract.client();
        String name = contract.lockName();
        assertThatThrownBy(() -> client.multiLock()).isInstanceOf(LockConfigurationException.class);
        assertThatThrownBy(() -> client.multiLock(name, name))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> client.multiLock(name, "")).isInstanceOf(LockConfigurationException.class);
        assertThatThrownBy(() -> client.multiLock((String[]) null)).isInstanceOf(LockConfigurationException.class);
    }
}
