package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * The kit's fairness property ({@link LockBackendContract.Fairness}): four clients, one thread each,
 * loop acquire-release on one name with nothing between a release and the next acquire, the pattern
 * in which a barging lock hands nearly every grant straight back to the client that just released.
 * With {@link Capability#FAIR}, every client must get at least a fifth of its fair share of the
 * grants (no starvation); a fixture without it (a backend that barges by request) is only checked for
 * exclusion, since a barging lock may starve a client for the whole run.
 *
 * <p>Grants are counted once every client has connected and taken the lock once: a client still
 * opening its first connection (a new pool, a TLS or SCRAM handshake on a loaded machine) is not
 * waiting yet, and the others' grants meanwhile are no starvation. A run ends after {@link #GRANTS}
 * grants once every client has its fifth of a fair share, or else after {@link #RUN}: a fast backend
 * makes that many grants in less time than a loaded machine may leave a client thread unscheduled,
 * and a thread that is not run is not waiting either, so a short share is only judged after a run
 * long beside such a stall. A lock that lets the releasing client barge starves the others for the
 * whole run, however long; a fair one ends the run at its {@link #GRANTS}th grant without burning
 * the rest of {@link #RUN} in a busy loop.
 */
abstract class FairnessProperty {
    /**
     * The fewest grants counted per run: twenty per client, so that a fair lock shows each client's
     * fifth (four grants) at once; a lock that starves a client gets no early end and is judged
     * after {@link #RUN}.
     */
    static final int GRANTS = 80;

    static final int CLIENTS = 4;

    /**
     * The run that judges a short share: long beside a thread's scheduling stall on a loaded machine,
     * so that a stall costs a client part of its share, never the fifth of it the property asks for.
     */
    static final Duration RUN = Duration.ofSeconds(2);

    /**
     * Bound on a run and on each acquisition in it: {@link #GRANTS} grants, or {@link #RUN} spent
     * waiting for a fair share, and the clients' first grants before the counting.
     */
    static Duration runBound() {
        return KitTime.bulkWork(GRANTS + CLIENTS).plus(RUN);
    }

    private final LockBackendContract contract;

    FairnessProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    @Test
    void fourClientsLoopingOnOneNameEachGetAFairShare() throws Exception {
        String name = contract.lockName();
        AtomicIntegerArray grants = new AtomicIntegerArray(CLIENTS);
        AtomicInteger total = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        long[] countingSince = new long[1];
        CyclicBarrier connected = new CyclicBarrier(CLIENTS, () -> countingSince[0] = System.nanoTime());
        Duration run = runBound();
        List<Future<Object>> loops = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            DistributedLock lock = contract.client().lock(name);
            loops.add(contract.inThread(() -> {
                lock.acquire(run).close();
                connected.await(run.toMillis(), TimeUnit.MILLISECONDS);
                while (!stop.get()) {
                    try (Lease lease = lock.acquire(run)) {
                        if (inside.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        count(contract, grants, total, client, countingSince[0], stop);
                        inside.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<Object> loop : loops) {
            Await.result(loop, run);
        }
        assertThat(overlaps.get()).isZero();
        assertFairShares(contract, grants);
    }

    /**
     * Whether a run can end: {@link #GRANTS} grants made and, on a fair lock, every client holding its
     * fifth of a fair share, or {@link #RUN} gone by since the counting began.
     *
     * @param total the grants counted so far, this one included
     * @param since {@link System#nanoTime()} when the counting began
     */
    static boolean shown(LockBackendContract contract, AtomicIntegerArray grants, int total, long since) {
        if (total < GRANTS) {
            return false;
        }
        if (KitTime.millisSince(since) >= RUN.toMillis()
                || !contract.fixture().capabilities().contains(Capability.FAIR)) {
            return true;
        }
        int fifthOfFairShare = total / grants.length() / 5;
        for (int c = 0; c < grants.length(); c++) {
            if (grants.get(c) < fifthOfFairShare) {
                return false;
            }
        }
        return true;
    }

    /**
     * Counts a grant to {@code client} while the run goes on, and ends the run once it has shown its
     * point ({@link #shown}). Called while the lock is held, so calls never overlap on a correct lock.
     * A grant made after the end (another client's acquisition already under way) is not counted:
     * the shares were judged on the counts at the end, and one grant more would raise the fifth that
     * every client must reach without giving the others a chance to reach it.
     */
    static void count(
            LockBackendContract contract,
            AtomicIntegerArray grants,
            AtomicInteger total,
            int client,
            long since,
            AtomicBoolean stop) {
        if (stop.get()) {
            return;
        }
        grants.incrementAndGet(client);
        if (shown(contract, grants, total.incrementAndGet(), since)) {
            stop.set(true);
        }
    }

    /**
     * With {@link Capability#FAIR}, fails unless every client got at least a fifth of its fair share
     * of the grants counted.
     */
    static void assertFairShares(LockBackendContract contract, AtomicIntegerArray grants) {
        int[] counts = new int[grants.length()];
        int total = 0;
        for (int c = 0; c < counts.length; c++) {
            counts[c] = grants.get(c);
            total += counts[c];
        }
        int least = Integer.MAX_VALUE;
        for (int count : counts) {
            least = Math.min(least, count);
        }
        int fifthOfFairShare = total / counts.length / 5;
        if (contract.fixture().capabilities().contains(Capability.FAIR)) {
            assertThat(least)
                    .as(
                            "grants of the least served client (per client: %s); a fair lock gives each at least a"
                                    + " fifth of its fair share, %d",
                            java.util.Arrays.toString(counts), fifthOfFairShare)
                    .isGreaterThanOrEqualTo(fifthOfFairShare);
        }
    }
}
