package dev.baton.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.DistributedLock;
import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockListener;
import dev.baton.LockListener.AcquireOutcome;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * {@link ReactiveLocks} on a real backend, with {@link StepVerifier}: a lease per subscription, the
 * work run under the lock and the lock released on completion, error and cancel, and a cancel while
 * waiting that leaves nothing behind (the next client gets the lock at once after the holder
 * releases). "At once" is one {@code tryAcquire}: a waiter left in the backend's line would be handed
 * the lock first, or stand before it.
 *
 * <p>Why the tests wait on listener events: a cancel ends the subscription at once, while the
 * acquisition leaves the backend's line, or the lease is released, on a Baton thread afterwards; the
 * acquisition's end ({@link LockListener#acquireEnded}) and the release's ({@link
 * LockListener#leaseReleased}) are the moments from which the lock must be free.
 */
@Timeout(60)
abstract class ReactiveLocksContract {
    /** Bound on one backend call: the clients' operation timeout. */
    static final Duration OPERATION = Duration.ofSeconds(2);

    /**
     * Bound on anything the tests wait for: one backend call plus scheduling on a loaded machine (the
     * kit's OPERATION_TIMEOUT plus SLACK; KitTime is not visible outside baton-tck).
     */
    static final Duration BOUND = OPERATION.plusSeconds(3);

    /** Long enough never to run out in a test: the tests cancel such waits. */
    static final Duration LONG = Duration.ofMinutes(1);

    private final List<LockClient> clients = new ArrayList<>();
    private final String name = "reactor-" + UUID.randomUUID();

    /** A client of this suite's backend with {@code options}; every call talks to the same server. */
    abstract LockClient connect(LockOptions options);

    private LockClient client() {
        return client(null);
    }

    private LockClient client(LockListener listener) {
        LockOptions.Builder options = LockOptions.builder().operationTimeout(OPERATION);
        if (listener != null) {
            options.listener(listener);
        }
        LockClient client = connect(options.build());
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    /** Every acquisition's end, wait and release, as one client's listener hears them. */
    static final class Events implements LockListener {
        private final BlockingQueue<AcquireOutcome> outcomes = new LinkedBlockingQueue<>();
        private final BlockingQueue<String> waits = new LinkedBlockingQueue<>();
        private final BlockingQueue<String> releases = new LinkedBlockingQueue<>();

        @Override
        public void acquireEnded(String lock, String backend, AcquireOutcome outcome, Duration waited) {
            outcomes.add(outcome);
        }

        @Override
        public void waitStarted(String lock, String backend) {
            waits.add(lock);
        }

        @Override
        public void leaseReleased(String lock, String backend, Duration held) {
            releases.add(lock);
        }

        AcquireOutcome nextOutcome() {
            return next(outcomes, "an acquisition ended");
        }

        void awaitWaiting() {
            next(waits, "the acquisition started waiting");
        }

        void awaitRelease() {
            next(releases, "the lease was released");
        }

        private static <T> T next(BlockingQueue<T> queue, String what) {
            try {
                T event = queue.poll(BOUND.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(event).as(what + " within " + BOUND).isNotNull();
                return event;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Asserts that another client takes the lock with one attempt, and gives it back. */
    private long freeForAnotherClient(String why) {
        Optional<Lease> taken = client().lock(name).tryAcquire();
        assertThat(taken).as(why).isPresent();
        try (Lease lease = taken.get()) {
            return lease.fencingToken();
        }
    }

    private void heldByAnother(String why) {
        assertThat(client().lock(name).tryAcquire()).as(why).isEmpty();
    }

    @Test
    void aMonoAcquiresWhenSubscribedAndEachSubscriptionIsALeaseOfItsOwn() {
        Mono<Lease> acquisition = ReactiveLocks.acquire(client().lock(name), BOUND);
        long before = freeForAnotherClient("the lock before anyone subscribed");
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            StepVerifier.create(acquisition)
                    .assertNext(lease -> {
                        assertThat(lease.isValid()).isTrue();
                        assertThat(lease.name()).isEqualTo(name);
                        leases.add(lease);
                    })
                    .expectComplete()
                    .verify(BOUND);
            heldByAnother("the lock while the subscriber holds its lease");
            leases.get(i).releaseAsync().join();
        }
        assertThat(leases.get(0).fencingToken()).isGreaterThan(before);
        assertThat(leases.get(1).fencingToken()).isGreaterThan(leases.get(0).fencingToken());
    }

    @Test
    void withLockRunsTheWorkUnderTheLockAndReleasesWhenItCompletes() {
        DistributedLock lock = client().lock(name);
        Mono<Long> work = ReactiveLocks.withLock(lock, BOUND, lease -> Mono.fromCallable(() -> {
                    heldByAnother("the lock while the work runs");
                    return lease.fencingToken();
                })
                .subscribeOn(Schedulers.boundedElastic()));
        StepVerifier.create(work)
                .assertNext(token -> assertThat(token).isPositive())
                .expectComplete()
                .verify(BOUND);
        freeForAnotherClient("the lock once withLock completed");
    }

    @Test
    void withLockReleasesWhenTheWorkFails() {
        Mono<String> failing = ReactiveLocks.withLock(
                client().lock(name), BOUND, lease -> Mono.error(new IllegalStateException("the work failed")));
        StepVerifier.create(failing)
                .expectErrorSatisfies(e ->
                        assertThat(e).isInstanceOf(IllegalStateException.class).hasMessage("the work failed"))
                .verify(BOUND);
        freeForAnotherClient("the lock once the work failed");
    }

    @Test
    void withLockReleasesWhenCancelledWhileTheWorkRuns() {
        Events events = new Events();
        CountDownLatch working = new CountDownLatch(1);
        Mono<Void> endless = ReactiveLocks.withLock(
                client(events).lock(name), BOUND, lease -> Mono.<Void>never().doOnSubscribe(s -> working.countDown()));
        StepVerifier.create(endless)
                .expectSubscription()
                .then(() -> await(working, "the work started"))
                .thenCancel()
                .verify(BOUND);
        assertThat(events.nextOutcome()).isEqualTo(AcquireOutcome.ACQUIRED);
        events.awaitRelease();
        freeForAnotherClient("the lock once the work was cancelled");
    }

    @Test
    void aCancelWhileWaitingLeavesNothingBehindAndNeverRunsTheWork() {
        Events events = new Events();
        Lease held = client().lock(name).acquire(BOUND);
        AtomicBoolean ran = new AtomicBoolean();
        Mono<String> waiting = ReactiveLocks.withLock(client(events).lock(name), LONG, lease -> {
            ran.set(true);
            return Mono.just("ran");
        });
        StepVerifier.create(waiting)
                .expectSubscription()
                .then(events::awaitWaiting)
                .thenCancel()
                .verify(BOUND);
        assertThat(events.nextOutcome()).isEqualTo(AcquireOutcome.CANCELLED);

        held.close();
        long next = freeForAnotherClient(
                "the lock after its holder released it: the cancelled waiter left something behind");
        assertThat(next).isGreaterThan(held.fencingToken());
        assertThat(ran).as("the work of a cancelled wait ran").isFalse();
    }

    @Test
    void reactorsTimeoutCancelsTheWaitAndLeavesNothingBehind() {
        Events events = new Events();
        Lease held = client().lock(name).acquire(BOUND);
        Mono<Lease> waiting =
                ReactiveLocks.acquire(client(events).lock(name), LONG).timeout(Duration.ofMillis(200));
        StepVerifier.create(waiting).expectError(TimeoutException.class).verify(BOUND);
        assertThat(events.nextOutcome()).isEqualTo(AcquireOutcome.CANCELLED);

        held.close();
        freeForAnotherClient("the lock after its holder released it: the timed-out waiter left something behind");
    }

    @Test
    void disposingAtAnyMomentNeverLeavesTheLockHeld() {
        Events events = new Events();
        DistributedLock lock = client(events).lock(name);
        for (int i = 0; i < 20; i++) {
            // The lock is free, so the grant is on its way, or already here, as the subscriber goes.
            Disposable subscription =
                    ReactiveLocks.withLock(lock, BOUND, lease -> Mono.never()).subscribe();
            subscription.dispose();
            if (events.nextOutcome() == AcquireOutcome.ACQUIRED) {
                events.awaitRelease(); // granted before the cancel was seen: released by withLock
            }
            freeForAnotherClient("the lock after a disposed withLock (round " + i + ")");
        }
    }

    @Test
    void aLeaseThatArrivedBeforeTheRequestIsReleasedOnCancel() {
        Events events = new Events();
        List<CompletableFuture<?>> futures = new ArrayList<>();
        DistributedLock lock = recording(client(events).lock(name), futures);
        StepVerifier.create(ReactiveLocks.acquire(lock, BOUND), 0)
                .expectSubscription()
                .then(() -> assertThat(futures.get(0).join()).isInstanceOf(Lease.class)) // granted, not requested
                .thenCancel()
                .verify(BOUND);
        events.awaitRelease();
        freeForAnotherClient("the lock after a cancel before the lease was requested");
    }

    @Test
    void aLeaseThatArrivedBeforeTheRequestIsHandedOnWhenRequested() {
        List<CompletableFuture<?>> futures = new ArrayList<>();
        DistributedLock lock = recording(client().lock(name), futures);
        List<Lease> leases = new ArrayList<>();
        StepVerifier.create(ReactiveLocks.acquire(lock, BOUND), 0)
                .expectSubscription()
                .then(() -> futures.get(0).join())
                .thenRequest(1)
                .consumeNextWith(leases::add)
                .expectComplete()
                .verify(BOUND);
        heldByAnother("the lock while the subscriber holds its lease");
        leases.get(0).close();
        freeForAnotherClient("the lock once the subscriber released it");
    }

    /** {@code lock}, with the future of every asynchronous acquisition it starts added to {@code futures}. */
    private static DistributedLock recording(DistributedLock lock, List<CompletableFuture<?>> futures) {
        InvocationHandler forward = (proxy, method, args) -> {
            Object result;
            try {
                result = method.invoke(lock, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (result instanceof CompletableFuture<?> future) {
                futures.add(future);
            }
            return result;
        };
        return (DistributedLock) Proxy.newProxyInstance(
                DistributedLock.class.getClassLoader(), new Class<?>[] {DistributedLock.class}, forward);
    }

    @Test
    void aTimeoutFailsWithLockTimeoutNamingTheLockWithoutRunningTheWork() {
        Lease held = client().lock(name).acquire(BOUND);
        AtomicBoolean ran = new AtomicBoolean();
        Mono<String> late = ReactiveLocks.withLock(client().lock(name), Duration.ofMillis(200), lease -> {
            ran.set(true);
            return Mono.just("ran");
        });
        StepVerifier.create(late)
                .expectErrorSatisfies(e ->
                        assertThat(e).isInstanceOf(LockTimeoutException.class).hasMessageContaining(name))
                .verify(BOUND);
        assertThat(ran).isFalse();
        held.close();
    }

    @Test
    void badArgumentsAreRefusedWhenTheMonoIsMade() {
        DistributedLock lock = client().lock(name);
        assertThatThrownBy(() -> ReactiveLocks.acquire(lock, null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining(name)
                .hasMessageContaining("must not be null");
        assertThatThrownBy(() -> ReactiveLocks.withLock(lock, Duration.ofSeconds(-1), lease -> Mono.empty()))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining(name)
                .hasMessageContaining("Duration.ZERO");
        assertThatThrownBy(() -> ReactiveLocks.withLockMany(lock, BOUND, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("work");
        assertThatThrownBy(() -> ReactiveLocks.acquire((DistributedLock) null, BOUND))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("lock");
        freeForAnotherClient("the lock after refused arguments");
    }

    @Test
    void withLockManyHoldsTheLockUntilTheFluxEnds() {
        Flux<Long> tokens = ReactiveLocks.withLockMany(
                client().lock(name), BOUND, lease -> Flux.range(1, 3).concatMap(i -> Mono.fromCallable(() -> {
                            heldByAnother("the lock at value " + i);
                            return lease.fencingToken();
                        })
                        .subscribeOn(Schedulers.boundedElastic())));
        List<Long> seen = new ArrayList<>();
        StepVerifier.create(tokens)
                .recordWith(() -> seen)
                .expectNextCount(3)
                .expectComplete()
                .verify(BOUND);
        assertThat(seen).hasSize(3).containsOnly(seen.get(0));
        freeForAnotherClient("the lock once the Flux completed");
    }

    @Test
    void aMultiLockIsHeldWholeAndReleasedWhole() {
        String second = name + "-b";
        DistributedLock both = client().multiLock(name, second);
        Mono<List<Lease>> members = ReactiveLocks.withLock(both, BOUND, lease -> Mono.fromCallable(() -> {
                    heldByAnother("the first name while the multi-lock is held");
                    assertThat(client().lock(second).tryAcquire()).isEmpty();
                    return lease.members();
                })
                .subscribeOn(Schedulers.boundedElastic()));
        StepVerifier.create(members)
                .assertNext(leases -> assertThat(leases).hasSize(2))
                .expectComplete()
                .verify(BOUND);
        freeForAnotherClient("the first name once released");
        assertThat(client().lock(second).tryAcquire()).isPresent().get().satisfies(Lease::close);
    }

    @Test
    void aSemaphoreGivesItsPermitsAndTakesThemBack() {
        LockClient client = client();
        DistributedSemaphore semaphore = client.semaphore(name, 2);
        Lease first = ReactiveLocks.acquire(semaphore, BOUND).block(BOUND);
        Mono<Long> second = ReactiveLocks.withPermit(semaphore, BOUND, lease -> Mono.fromCallable(() -> {
                    assertThat(client().semaphore(name, 2).tryAcquire())
                            .as("a third permit of two")
                            .isEmpty();
                    return lease.fencingToken();
                })
                .subscribeOn(Schedulers.boundedElastic()));
        StepVerifier.create(second)
                .assertNext(token -> assertThat(token).isNotEqualTo(first.fencingToken()))
                .expectComplete()
                .verify(BOUND);
        Flux<Integer> third = ReactiveLocks.withPermitMany(semaphore, BOUND, lease -> Flux.just(1, 2));
        StepVerifier.create(third).expectNext(1, 2).expectComplete().verify(BOUND);
        first.close();
        Optional<Lease> again = client().semaphore(name, 2).tryAcquire();
        assertThat(again).as("a permit once every holder released").isPresent();
        again.get().close();
    }

    private static void await(CountDownLatch latch, String what) {
        try {
            assertThat(latch.await(BOUND.toMillis(), TimeUnit.MILLISECONDS))
                    .as(what + " within " + BOUND)
                    .isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
