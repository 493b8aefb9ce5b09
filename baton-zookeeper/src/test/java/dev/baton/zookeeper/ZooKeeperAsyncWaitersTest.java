package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockListener;
import dev.baton.LockOptions;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Asynchronous waiters wait in ZooKeeper's queues without a thread of their own: while a client's
 * waiters wait behind another client's holders, on locks and on semaphores (whose waiters wait in
 * the semaphore's mutex, and then, holding it, for a lease to go), the client runs only its shared
 * Baton threads, the wait timer and the calls pool, never one per waiter; and each waiter is
 * granted once its holder releases.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperAsyncWaitersTest extends OneServerTestBase {
    /** More than the calls pool's threads, and than the 16 blocking waits a client once ran at once. */
    private static final int WAITERS = 40;

    /** The Baton threads every waiter of a client shares: its wait timer and its calls pool. */
    private static final Pattern SHARED = Pattern.compile("baton-\\d+-(wait|call)-\\d+");

    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(10))
            .operationTimeout(Duration.ofSeconds(5))
            .build();

    private LockClient client(LockOptions options) {
        LockClient client = Baton.connect("zookeeper://" + server.connectString(), options);
        resources.add(client);
        return client;
    }

    @Test
    void asyncWaitersOnLocksHoldNoThreadAndAreEachGrantedOnRelease() throws Exception {
        waitersHoldNoThread(
                (client, name) -> client.lock(name).acquire(KitTime.grant()),
                (client, name) -> client.lock(name).acquireAsync(KitTime.bound(Duration.ofSeconds(30))));
    }

    @Test
    void asyncWaitersOnSemaphoresHoldNoThreadAndAreEachGrantedOnRelease() throws Exception {
        waitersHoldNoThread(
                (client, name) -> client.semaphore(name, 1).acquire(KitTime.grant()),
                (client, name) -> client.semaphore(name, 1).acquireAsync(KitTime.bound(Duration.ofSeconds(30))));
    }

    private interface Take<T> {
        T take(LockClient client, String name) throws Exception;
    }

    private void waitersHoldNoThread(Take<Lease> hold, Take<CompletableFuture<Lease>> await) throws Exception {
        String prefix = "async-waiters-" + UUID.randomUUID() + "-";
        CountDownLatch waiting = new CountDownLatch(WAITERS);
        LockClient holder = client(OPTIONS);
        LockClient waiter = client(OPTIONS.toBuilder()
                .listener(new LockListener() {
                    @Override
                    public void waitStarted(String lock, String backend) {
                        waiting.countDown();
                    }
                })
                .build());
        List<Lease> held = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            held.add(hold.take(holder, prefix + i));
        }
        Set<String> before = batonThreads();

        List<CompletableFuture<Lease>> futures = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            futures.add(await.take(waiter, prefix + i));
        }
        assertThat(waiting.await(KitTime.bound(Duration.ofSeconds(20)).toMillis(), TimeUnit.MILLISECONDS))
                .as("every waiter waits in its queue")
                .isTrue();
        Set<String> started = new HashSet<>(batonThreads());
        started.removeAll(before);
        assertThat(started)
                .as("Baton threads started while %d asynchronous waiters wait", WAITERS)
                .allMatch(name -> SHARED.matcher(name).matches());
        assertThat(futures).noneMatch(CompletableFuture::isDone);

        for (int i = 0; i < WAITERS; i++) {
            long holderToken = held.get(i).fencingToken();
            held.get(i).close();
            Lease granted = Await.result(futures.get(i), KitTime.grant());
            assertThat(granted.isValid()).isTrue();
            assertThat(granted.fencingToken()).isGreaterThan(holderToken);
            granted.close();
        }
    }

    private static Set<String> batonThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(thread -> thread.startsWith("baton-"))
                .collect(Collectors.toSet());
    }
}
