package dev.baton.spring.integration;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.DistributedLock;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.testsupport.TestTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * {@link BatonLockRegistry} used the way Spring Integration uses a lock registry, on a real backend.
 * Two registries over two clients stand for two application instances.
 */
@Timeout(60)
abstract class BatonLockRegistryContract {
    LockClient clientA;
    LockClient clientB;
    BatonLockRegistry registryA;
    BatonLockRegistry registryB;
    final String key = "si-" + UUID.randomUUID();

    /** A new client on this suite's backend with {@code options}; every call talks to the same server. */
    abstract LockClient connect(LockOptions options);

    LockClient connect() {
        return connect(LockOptions.defaults());
    }

    @BeforeEach
    void open() {
        clientA = connect();
        clientB = connect();
        registryA = new BatonLockRegistry(clientA);
        registryB = new BatonLockRegistry(clientB);
    }

    @AfterEach
    void close() {
        clientA.close();
        clientB.close();
    }

    /** Whether the other instance could take the lock now (taken and released at once if so). */
    private boolean freeForB() throws Exception {
        return CompletableFuture.supplyAsync(() -> {
                    Lock lock = registryB.obtain(key);
                    if (!lock.tryLock()) {
                        return false;
                    }
                    lock.unlock();
                    return true;
                })
                .get();
    }

    @Test
    void obtainLockUnlock() throws Exception {
        Lock lock = registryA.obtain(key);
        lock.lock();
        try {
            assertThat(((DistributedLock) lock).isHeldByCurrentThread()).isTrue();
            assertThat(freeForB()).isFalse();
        } finally {
            lock.unlock();
        }
        assertThat(freeForB()).isTrue();
    }

    @Test
    void twoRegistriesNeverOverlap() throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                BatonLockRegistry registry = t % 2 == 0 ? registryA : registryB;
                futures.add(threads.submit(() -> {
                    for (int i = 0; i < 15; i++) {
                        Lock lock = registry.obtain(key);
                        lock.lock();
                        try {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get();
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(overlaps).hasValue(0);
    }

    @Test
    void tryLockGivesUpAfterItsTimeout() throws Exception {
        Lock held = registryA.obtain(key);
        held.lock();
        try {
            Boolean[] results = CompletableFuture.supplyAsync(() -> {
                        Lock lock = registryB.obtain(key);
                        try {
                            return new Boolean[] {lock.tryLock(), lock.tryLock(200, TimeUnit.MILLISECONDS)};
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    })
                    .get();
            assertThat(results).containsExactly(false, false);
        } finally {
            held.unlock();
        }
        assertThat(freeForB()).isTrue();
    }

    @Test
    void interruptedWaitersLeaveNothingBehind() throws Exception {
        Lock held = registryA.obtain(key);
        held.lock();
        AtomicReference<Throwable> lockInterruptibly = new AtomicReference<>();
        AtomicReference<Throwable> tryLock = new AtomicReference<>();
        Thread first = new Thread(() -> {
            try {
                registryB.obtain(key).lockInterruptibly();
            } catch (Throwable e) {
                lockInterruptibly.set(e);
            }
        });
        Thread second = new Thread(() -> {
            try {
                registryB.obtain(key).tryLock(1, TimeUnit.MINUTES);
            } catch (Throwable e) {
                tryLock.set(e);
            }
        });
        try {
            for (Thread waiter : List.of(first, second)) {
                waiter.start();
                await().atMost(TestTime.grant())
                        .until(() -> waiter.getState() == Thread.State.WAITING
                                || waiter.getState() == Thread.State.TIMED_WAITING);
                waiter.interrupt();
                waiter.join();
            }
        } finally {
            held.unlock();
        }
        assertThat(lockInterruptibly.get()).isInstanceOf(InterruptedException.class);
        assertThat(tryLock.get()).isInstanceOf(InterruptedException.class);
        assertThat(freeForB()).isTrue();
    }

    @Test
    void reentrantOnTheSameThreadReleasedByTheLastUnlock() throws Exception {
        DistributedLock lock = registryA.obtain(key);
        lock.lock();
        assertThat(registryA.obtain(key).tryLock()).isTrue();
        assertThat(lock.holdCount()).isEqualTo(2);

        lock.unlock();
        assertThat(freeForB()).isFalse();
        lock.unlock();
        assertThat(freeForB()).isTrue();
    }

    @Test
    void unlockByAnotherThreadIsRefusedAndReleasesNothing() throws Exception {
        Lock lock = registryA.obtain(key);
        lock.lock();
        try {
            Throwable failure = CompletableFuture.supplyAsync(() -> {
                        try {
                            registryA.obtain(key).unlock();
                            return null;
                        } catch (Throwable e) {
                            return e;
                        }
                    })
                    .get();
            assertThat(failure).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(freeForB()).isFalse();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void renewLockConfirmsTheHolderAndRefusesOthers() throws Exception {
        assertThatThrownBy(() -> registryA.renewLock(key))
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("does not hold it");
        Lock lock = registryA.obtain(key);
        lock.lock();
        try {
            registryA.renewLock(key);
            registryA.renewLock(key, clientA.options().leaseTime());
            assertThat(((DistributedLock) lock).holdCount())
                    .as("renewLock leaves no hold behind")
                    .isEqualTo(1);
            registryA.renewLock(key, clientA.options().leaseTime().multipliedBy(2));
            assertThatThrownBy(() -> registryA.renewLock(key, ofMillis(1234)))
                    .as("an auto-renewed lease is extended by at least its lease time")
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("lease time");
            assertThatThrownBy(() -> registryA.renewLock(key, ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(key);
            assertThat(((DistributedLock) lock).holdCount()).isEqualTo(1);
            Throwable otherThread = CompletableFuture.supplyAsync(() -> {
                        try {
                            registryA.renewLock(key);
                            return null;
                        } catch (Throwable e) {
                            return e;
                        }
                    })
                    .get();
            assertThat(otherThread).isInstanceOf(IllegalMonitorStateException.class);
        } finally {
            lock.unlock();
        }
    }

    @Test
    void renewLockExtendsALeaseWithoutAutoRenewalPastItsLeaseTime() throws Exception {
        LockOptions noRenewal =
                LockOptions.builder().leaseTime(ofSeconds(1)).autoRenew(false).build();
        try (LockClient client = connect(noRenewal)) {
            BatonLockRegistry registry = new BatonLockRegistry(client);
            Lock lock = registry.obtain(key);
            long start = System.nanoTime();
            lock.lock();
            try {
                registry.renewLock(key, ofSeconds(4));
                // Past the original lease time, well within the extension.
                await().atMost(TestTime.bound(ofMillis(1_300)))
                        .pollInterval(ofMillis(50))
                        .until(() -> System.nanoTime() - start > ofMillis(1_300).toNanos());
                assertThat(freeForB()).as("held past its lease time").isFalse();
                registry.renewLock(key); // extends by the lease time from now
                assertThat(((DistributedLock) lock).holdCount()).isEqualTo(1);
            } finally {
                lock.unlock();
            }
            assertThat(freeForB()).isTrue();
        }
    }

    @Test
    void keysMustBeStrings() {
        assertThatThrownBy(() -> registryA.obtain(42))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("java.lang.Integer '42'")
                .hasMessageContaining(clientA.backendName());
        assertThatThrownBy(() -> registryA.obtain(null)).isInstanceOf(LockConfigurationException.class);
    }

    @Test
    void executeLockedRunsUnderTheLock() throws Exception {
        AtomicReference<Boolean> freeInside = new AtomicReference<>();
        registryA.executeLocked(key, () -> freeInside.set(freeForB()));
        assertThat(freeInside.get()).isFalse();
        assertThat(freeForB()).isTrue();
    }

    @Test
    void leaderInitiatorsElectOneLeaderAndHandOverWhenItStops() {
        String role = "leader-" + UUID.randomUUID();
        List<String> granted = new CopyOnWriteArrayList<>();
        LockRegistryLeaderInitiator a = new LockRegistryLeaderInitiator(registryA, candidate("a", role, granted));
        LockRegistryLeaderInitiator b = new LockRegistryLeaderInitiator(registryB, candidate("b", role, granted));
        for (LockRegistryLeaderInitiator initiator : List.of(a, b)) {
            initiator.setHeartBeatMillis(100);
            initiator.setBusyWaitMillis(20);
        }
        try {
            a.start();
            b.start();
            await().atMost(TestTime.grant()).until(() -> granted.size() == 1);
            LockRegistryLeaderInitiator leader = granted.get(0).equals("a") ? a : b;
            LockRegistryLeaderInitiator follower = leader == a ? b : a;
            assertThat(leader.getContext().isLeader()).isTrue();
            assertThat(follower.getContext().isLeader()).isFalse();

            leader.stop();

            await().atMost(TestTime.bound(TestTime.TAKE_OVER)).until(() -> granted.size() == 2);
            assertThat(granted.get(1)).isNotEqualTo(granted.get(0));
            assertThat(follower.getContext().isLeader()).isTrue();
        } finally {
            a.destroy();
            b.destroy();
        }
    }

    private static DefaultCandidate candidate(String id, String role, List<String> granted) {
        return new DefaultCandidate(id, role) {
            @Override
            public void onGranted(Context context) {
                granted.add(id);
            }
        };
    }
}
