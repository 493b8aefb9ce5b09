package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockAdmin;
import dev.baton.LockClient;
import dev.baton.LockListener;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * The kit's property of the asynchronous API ({@link LockBackendContract.Async}): asynchronous and
 * blocking holders exclude each other; a cancelled wait leaves nothing behind on the backend, and a
 * grant that arrives after the cancel is released; one client's asynchronous waiters are served in
 * the order they asked, and where the backend is fair, asynchronous clients looping on one lock each
 * get a fair share; and a lost lease is told to its asynchronous holder.
 *
 * <p>Why it waits on listener events: a cancel ends the caller's future at once, while the
 * acquisition leaves the backend's line on a Baton thread afterwards; the acquisition's end, which
 * {@link LockListener#acquireEnded} reports once its clean-up is done, is the moment from which
 * nothing may be left.
 */
abstract class AsyncProperty {
    private final LockBackendContract contract;

    AsyncProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    /** Every acquire call's end, as the client's listener hears it. */
    private static final class Ends implements LockListener {
        final BlockingQueue<AcquireOutcome> outcomes = new LinkedBlockingQueue<>();
        final BlockingQueue<String> waits = new LinkedBlockingQueue<>();
        final BlockingQueue<String> releases = new LinkedBlockingQueue<>();

        @Override
        public void waitStarted(String lock, String backend) {
            waits.add(lock);
        }

        @Override
        public void acquireEnded(String lock, String backend, AcquireOutcome outcome, Duration waited) {
            outcomes.add(outcome);
        }

        @Override
        public void leaseReleased(String lock, String backend, Duration held) {
            releases.add(lock);
        }

        AcquireOutcome nextOutcome() throws InterruptedException {
            AcquireOutcome outcome = outcomes.poll(bound().toMillis(), TimeUnit.MILLISECONDS);
            assertThat(outcome).as("an acquisition ended").isNotNull();
            return outcome;
        }

        void awaitWaiting() throws InterruptedException {
            assertThat(waits.poll(bound().toMillis(), TimeUnit.MILLISECONDS))
                    .as("the acquisition started waiting")
                    .isNotNull();
        }

        void awaitRelease() throws InterruptedException {
            assertThat(releases.poll(bound().toMillis(), TimeUnit.MILLISECONDS))
                    .as("the lease was released")
                    .isNotNull();
        }
    }

    /** The kit's bound on a grant of a free lock or a release ({@link KitTime#grant()}). */
    private static Duration bound() {
        return KitTime.grant();
    }

    private LockClient client(Ends ends) {
        LockOptions options = contract.options().toBuilder().listener(ends).build();
        return contract.client(options);
    }

    @Test
    void asyncAndBlockingHoldersNeverOverlap() throws Exception {
        String name = contract.lockName();
        CriticalSections sections = new CriticalSections();
        int rounds = 30;
        LockClient async = contract.client();
        LockClient blocking = contract.client();
        // One blocking thread and four chains, each taking the lock that many rounds.
        Duration run = KitTime.bulkWork(5 * rounds);
        Future<?> threads = contract.inThread(() -> {
            sections.run(blocking.lock(name), rounds, run);
            return null;
        });
        DistributedLock lock = async.lock(name);
        // Four chains of asynchronous acquisitions at once, each starting its next one on release.
        List<CompletableFuture<Void>> chains = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            chains.add(chain(lock, sections, rounds, run));
        }
        for (CompletableFuture<Void> chain : chains) {
            Await.result(chain, run);
        }
        Await.result(threads, run);
        assertThat(sections.overlaps.get()).as("overlapping critical sections").isZero();
        assertThat(sections.counter).isEqualTo(5L * rounds);
        CriticalSections.assertStrictlyIncreasing(sections.tokens);
    }

    private static CompletableFuture<Void> chain(
            DistributedLock lock, CriticalSections sections, int rounds, Duration wait) {
        CompletableFuture<Void> start = CompletableFuture.completedFuture(null);
        CompletableFuture<Void> next = start;
        for (int i = 0; i < rounds; i++) {
            next = next.thenCompose(ignored -> lock.acquireAsync(wait)).thenCompose(lease -> {
                sections.enter(lease);
                sections.exit();
                return lease.releaseAsync();
            });
        }
        return next;
    }

    @Test
    void aCancelledWaitLeavesNothingBehind() throws Exception {
        String name = contract.lockName();
        Ends ends = new Ends();
        LockClient holderClient = contract.client();
        LockClient waiterClient = client(ends);
        Lease held = holderClient.lock(name).acquire(contract.grant());
        CompletableFuture<Lease> waiting = waiterClient.lock(name).acquireAsync(Duration.ofSeconds(60));
        ends.awaitWaiting();
        assertThat(waiting.cancel(false)).isTrue();
        assertThat(ends.nextOutcome()).isEqualTo(LockListener.AcquireOutcome.CANCELLED);

        held.close();
        // A leftover entry would have been handed the lock, or would stand before this request.
        try (Lease next = contract.client()
                .lock(name)
                .tryAcquire()
                .orElseThrow(() -> new AssertionError(
                        "the lock is not free after its holder released it: the cancelled waiter left something"
                                + " behind"))) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
        assertThat(waiting).isCancelled();
    }

    @Test
    void aGrantThatArrivesAfterTheCancelIsReleased() throws Exception {
        String name = contract.lockName();
        Ends ends = new Ends();
        LockClient client = client(ends);
        LockClient other = contract.client();
        for (int i = 0; i < 10; i++) {
            // The lock is free, so the grant is on its way while the caller cancels.
            CompletableFuture<Lease> acquiring = client.lock(name).acquireAsync(contract.grant());
            if (!acquiring.cancel(false)) {
                acquiring.join().close(); // granted before the cancel: an ordinary lease
            }
            if (ends.nextOutcome() == LockListener.AcquireOutcome.ACQUIRED) {
                ends.awaitRelease(); // granted before the cancel was seen: released on completion
            }
            try (Lease taken = other.lock(name)
                    .tryAcquire()
                    .orElseThrow(() -> new AssertionError(
                            "the lock is held after its acquisition was cancelled: the late grant was not released"))) {
                assertThat(taken.isValid()).isTrue();
            }
        }
    }

    @Test
    void oneClientsAsyncWaitersAreServedInTheOrderTheyAsked() throws Exception {
        String name = contract.lockName();
        Lease held = contract.client().lock(name).acquire(contract.grant());
        LockClient client = contract.client();
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            waiters.add(client.lock(name).acquireAsync(Duration.ofSeconds(60)));
        }
        held.close();
        for (int i = 0; i < waiters.size(); i++) {
            Lease lease = granted(waiters, i);
            for (int later = i + 1; later < waiters.size(); later++) {
                assertThat(waiters.get(later))
                        .as("waiter %d waits for waiter %d", later, i)
                        .isNotDone();
            }
            lease.releaseAsync().get(bound().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * {@link FairnessProperty}'s run with asynchronous clients: four clients, each a chain of
     * acquisitions that asks again as soon as it released, and no thread of their own.
     */
    @Test
    void fourAsyncClientsLoopingOnOneNameEachGetAFairShare() throws Exception {
        String name = contract.lockName();
        AtomicIntegerArray grants = new AtomicIntegerArray(FairnessProperty.CLIENTS);
        AtomicInteger total = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<DistributedLock> locks = new ArrayList<>();
        for (int c = 0; c < FairnessProperty.CLIENTS; c++) {
            DistributedLock lock = contract.client().lock(name);
            lock.acquire(contract.grant()).close(); // connected before the run counts
            locks.add(lock);
        }
        long countingSince = System.nanoTime();
        Duration run = FairnessProperty.runBound();
        List<CompletableFuture<Void>> loops = new ArrayList<>();
        for (int c = 0; c < locks.size(); c++) {
            int client = c;
            loops.add(loop(locks.get(c), run, stop, lease -> {
                if (inside.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                FairnessProperty.count(contract, grants, total, client, countingSince, stop);
                inside.decrementAndGet();
            }));
        }
        for (CompletableFuture<Void> loop : loops) {
            Await.result(loop, run);
        }
        assertThat(overlaps.get()).isZero();
        FairnessProperty.assertFairShares(contract, grants);
    }

    /** Acquires, runs {@code inside}, releases, and again, until {@code stop}; all asynchronously. */
    private static CompletableFuture<Void> loop(
            DistributedLock lock, Duration wait, AtomicBoolean stop, java.util.function.Consumer<Lease> inside) {
        if (stop.get()) {
            return CompletableFuture.completedFuture(null);
        }
        return lock.acquireAsync(wait)
                .thenCompose(lease -> {
                    inside.accept(lease);
                    return lease.releaseAsync();
                })
                .thenCompose(released -> loop(lock, wait, stop, inside));
    }

    /** Waiter {@code i}'s lease, granted within the bound of the release before it. */
    private static Lease granted(List<CompletableFuture<Lease>> waiters, int i) throws Exception {
        try {
            return waiters.get(i).get(bound().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            List<Boolean> done = waiters.stream().map(CompletableFuture::isDone).toList();
            throw new AssertionError("waiter " + i + " was not granted within " + bound()
                    + " of the release before it; granted or ended so far: " + done);
        }
    }

    @Test
    void aLossIsToldToAnAsyncHolder() throws Exception {
        String name = contract.lockName();
        LockClient client = contract.client();
        Lease held = client.lock(name).acquireAsync(contract.grant()).get(bound().toMillis(), TimeUnit.MILLISECONDS);
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        held.onLost(lost::complete);
        LockAdmin admin = contract.track(Baton.admin(contract.fixture().uri(), contract.options()));
        assertThat(admin.forceRelease(name)).isNotEmpty();
        Duration told = KitTime.bound(
                contract.options().leaseTime().plus(contract.options().operationTimeout()));
        assertThat(lost.get(told.toMillis(), TimeUnit.MILLISECONDS)).hasMessageContaining(name);
        assertThat(held.isValid()).isFalse();
        held.releaseAsync().get(bound().toMillis(), TimeUnit.MILLISECONDS); // never fails for a lost lease
    }

    @Test
    void aTimedOutAsyncWaitFailsWithLockTimeoutAndLeavesTheLine() throws Exception {
        String name = contract.lockName();
        Ends ends = new Ends();
        LockClient holderClient = contract.client();
        Lease held = holderClient.lock(name).acquire(contract.grant());
        CompletableFuture<Lease> waiting = client(ends).lock(name).acquireAsync(Duration.ofMillis(200));
        try {
            waiting.get(bound().toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("acquired a held lock");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(LockTimeoutException.class).hasMessageContaining(name);
        }
        assertThat(ends.nextOutcome()).isEqualTo(LockListener.AcquireOutcome.TIMED_OUT);
        held.close();
        try (Lease next = contract.client()
                .lock(name)
                .tryAcquire()
                .orElseThrow(
                        () -> new AssertionError(
                                "the lock is not free after its holder released it: the timed-out waiter left something behind"))) {
            assertThat(next.isValid()).isTrue();
        }
    }
}
