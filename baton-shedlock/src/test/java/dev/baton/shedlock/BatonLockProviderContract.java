package dev.baton.shedlock;

import static java.time.Duration.ZERO;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cases of ShedLock's own provider tests (lock, held elsewhere, unlock, lockAtLeastFor,
 * lockAtMostFor expiry, extend, concurrent increments through ShedLock's executor), run on a real
 * backend. Two providers over two clients stand for two application instances. Waiting for a lease
 * to run out polls (Awaitility) instead of sleeping.
 */
@Timeout(60)
abstract class BatonLockProviderContract {
    /** The backends' clocks count in milliseconds: an expiry may be observed up to 1 ms early by ours. */
    private static final Duration CLOCK_GRANULARITY = ofMillis(2);

    private LockClient clientA;
    private LockClient clientB;
    private BatonLockProvider providerA;
    private BatonLockProvider providerB;
    private final String name = "shedlock-" + UUID.randomUUID();

    /** A new client on this suite's backend; every call talks to the same server. */
    abstract LockClient connect();

    @BeforeEach
    void open() {
        clientA = connect();
        clientB = connect();
        providerA = new BatonLockProvider(clientA);
        providerB = new BatonLockProvider(clientB);
    }

    @AfterEach
    void close() {
        providerA.close();
        providerB.close();
        clientA.close();
        clientB.close();
    }

    static LockConfiguration config(String name, Duration atMostFor, Duration atLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, atMostFor, atLeastFor);
    }

    private LockConfiguration config() {
        return config(name, ofMinutes(5), ZERO);
    }

    @Test
    void locksAndUnlocks() {
        Optional<SimpleLock> lock = providerA.lock(config());
        assertThat(lock).isPresent();
        assertThat(providerB.lock(config())).isEmpty();

        lock.get().unlock();

        Optional<SimpleLock> other = providerB.lock(config());
        assertThat(other).isPresent();
        other.get().unlock();
    }

    @Test
    void lockHeldElsewhereGivesEmpty() {
        SimpleLock held = providerB.lock(config()).orElseThrow();

        assertThat(providerA.lock(config())).isEmpty();
        assertThat(providerA.lock(config())).isEmpty();
        held.unlock();
    }

    @Test
    void sameProviderGivesNoSecondLockOnTheSameThreadNorAnother() throws Exception {
        SimpleLock held = providerA.lock(config()).orElseThrow();

        assertThat(providerA.lock(config()))
                .as("same thread: no reentrant hold")
                .isEmpty();
        assertThat(CompletableFuture.supplyAsync(() -> providerA.lock(config())).get())
                .as("another thread of the same provider")
                .isEmpty();
        held.unlock();
        SimpleLock again = providerA.lock(config()).orElseThrow();
        again.unlock();
    }

    @Test
    void independentNamesDoNotBlockEachOther() {
        SimpleLock first = providerA.lock(config()).orElseThrow();
        SimpleLock second =
                providerB.lock(config(name + "-other", ofMinutes(5), ZERO)).orElseThrow();
        first.unlock();
        second.unlock();
    }

    @Test
    void lockableRightAfterUnlockManyTimes() {
        for (int i = 0; i < 10; i++) {
            SimpleLock lock = providerA.lock(config()).orElseThrow();
            assertThat(providerB.lock(config())).as("round %d", i).isEmpty();
            lock.unlock();
        }
    }

    @Test
    void unlockBeforeLockAtLeastForKeepsTheLockUntilThen() {
        Duration atLeastFor = ofSeconds(2);
        long start = System.nanoTime();
        SimpleLock lock =
                providerA.lock(config(name, ofSeconds(30), atLeastFor)).orElseThrow();

        lock.unlock();

        assertThat(providerB.lock(config()))
                .as("another instance, inside lockAtLeastFor")
                .isEmpty();
        assertThat(providerA.lock(config()))
                .as("the same instance, inside lockAtLeastFor")
                .isEmpty();
        SimpleLock next = await().atMost(KitTime.bound(atLeastFor.plus(KitTime.TAKE_OVER)))
                .pollInterval(ofMillis(50))
                .until(() -> providerB.lock(config()), Optional::isPresent)
                .orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(atLeastFor);
        next.unlock();
    }

    @Test
    void unlockAfterLockAtLeastForReleasesAtOnce() {
        long start = System.nanoTime();
        SimpleLock lock =
                providerA.lock(config(name, ofSeconds(30), ofMillis(1))).orElseThrow();
        await().atMost(KitTime.grant())
                .until(() -> System.nanoTime() - start > ofMillis(1).toNanos());
        lock.unlock();
        SimpleLock next = providerB.lock(config()).orElseThrow();
        next.unlock();
    }

    @Test
    void aHolderThatNeverUnlocksFreesTheLockAfterLockAtMostFor() {
        Duration atMostFor = ofSeconds(1);
        long start = System.nanoTime();
        assertThat(providerA.lock(config(name, atMostFor, ZERO))).isPresent();
        assertThat(providerB.lock(config())).isEmpty();

        SimpleLock taken = await().atMost(KitTime.bound(atMostFor.plus(KitTime.TAKE_OVER)))
                .pollInterval(ofMillis(50))
                .until(() -> providerB.lock(config()), Optional::isPresent)
                .orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isGreaterThanOrEqualTo(atMostFor.minus(CLOCK_GRANULARITY));
        taken.unlock();

        // The provider that lost it by expiry lets its stale lease go and can lock again.
        SimpleLock again = providerA.lock(config()).orElseThrow();
        again.unlock();
    }

    @Test
    void unlockTwiceIsRefused() {
        SimpleLock lock = providerA.lock(config()).orElseThrow();
        lock.unlock();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(name)
                .hasMessageContaining("already been unlocked");
    }

    @Test
    void extendKeepsTheLockPastTheOriginalLockAtMostFor() {
        long start = System.nanoTime();
        SimpleLock lock = providerA.lock(config(name, ofSeconds(1), ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(ofSeconds(4), ZERO).orElseThrow();
        assertThatThrownBy(lock::unlock)
                .as("the extended lock replaces the one extended")
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("extended");
        assertThatThrownBy(() -> lock.extend(ofSeconds(4), ZERO)).isInstanceOf(IllegalStateException.class);

        // Past the original lockAtMostFor, well within the extension.
        await().atMost(KitTime.bound(ofMillis(1_300)))
                .pollInterval(ofMillis(50))
                .until(() -> System.nanoTime() - start > ofMillis(1_300).toNanos());
        assertThat(providerB.lock(config()))
                .as("held past the original lockAtMostFor")
                .isEmpty();
        SimpleLock again = extended.extend(ofSeconds(4), ZERO).orElseThrow();
        again.unlock();
        providerB.lock(config()).orElseThrow().unlock();
    }

    @Test
    void extendingALockWhoseLeaseRanOutGivesEmpty() {
        SimpleLock lock = providerA.lock(config(name, ofSeconds(1), ZERO)).orElseThrow();
        SimpleLock taken = await().atMost(KitTime.bound(ofSeconds(1).plus(KitTime.TAKE_OVER)))
                .pollInterval(ofMillis(50))
                .until(() -> providerB.lock(config()), Optional::isPresent)
                .orElseThrow();
        assertThat(lock.extend(ofMinutes(1), ZERO)).isEmpty();
        assertThat(providerA.lock(config())).as("the other holder keeps it").isEmpty();
        taken.unlock();
    }

    @Test
    void badExtensionsAreRefusedAndLeaveTheLockHeld() {
        SimpleLock lock = providerA.lock(config()).orElseThrow();
        assertThatThrownBy(() -> lock.extend(ZERO, ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name);
        assertThatThrownBy(() -> lock.extend(ofSeconds(1), ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtLeastFor");
        assertThat(providerB.lock(config())).isEmpty();
        lock.unlock();
    }

    @Test
    void lockExtenderExtendsTheActiveLock() {
        AtomicInteger ran = new AtomicInteger();
        new DefaultLockingTaskExecutor(providerA)
                .executeWithLock(
                        (Runnable) () -> {
                            LockExtender.extendActiveLock(ofMinutes(1), ZERO);
                            assertThat(providerB.lock(config())).isEmpty();
                            ran.incrementAndGet();
                        },
                        config(name, ofSeconds(30), ZERO));
        assertThat(ran).hasValue(1);
        providerB.lock(config()).orElseThrow().unlock();
    }

    @Test
    void aNameTheBackendRefusesFailsWithTheLockAndBackendNamed() {
        String bad = "bad\nname";
        assertThatThrownBy(() -> providerA.lock(config(bad, ofMinutes(5), ZERO)))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("ShedLock lock 'bad\nname'")
                .hasMessageContaining(clientA.backendName());
        // Nothing was left behind for that name in the provider.
        assertThatThrownBy(() -> providerA.lock(config(bad, ofMinutes(5), ZERO)))
                .isInstanceOf(LockConfigurationException.class);
    }

    @Test
    void aClosedProviderRefusesToLock() {
        providerA.close();
        assertThatThrownBy(() -> providerA.lock(config()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed")
                .hasMessageContaining(name);
    }

    @Test
    void shedLockExecutorsOnTwoInstancesNeverOverlap() throws Exception {
        List<LockingTaskExecutor> executors =
                List.of(new DefaultLockingTaskExecutor(providerA), new DefaultLockingTaskExecutor(providerB));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger runs = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                LockingTaskExecutor executor = executors.get(t % 2);
                futures.add(threads.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        executor.executeWithLock(
                                (Runnable) () -> {
                                    if (inside.incrementAndGet() != 1) {
                                        overlaps.incrementAndGet();
                                    }
                                    runs.incrementAndGet();
                                    inside.decrementAndGet();
                                },
                                config());
                    }
                }));
            }
            for (Future<?> future : futures) {
                future.get();
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(overlaps).hasValue(0);
        assertThat(runs.get()).isPositive();
    }
}
