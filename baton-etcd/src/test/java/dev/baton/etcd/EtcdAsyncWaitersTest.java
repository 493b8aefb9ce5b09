package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockKind;
import dev.baton.LockListener;
import dev.baton.LockOptions;
import dev.baton.servers.EtcdServer;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Waiters wait in etcd's queues without a thread of their own: while a client's asynchronous waiters
 * wait behind another client's holders, on locks and on semaphores, the client runs only its shared
 * Baton threads (the wait timer and the calls pool), never one per waiter, and each waiter is granted
 * once its holder releases. A waiter decides on what its watches recorded, so an attempt makes the
 * decision however late it comes after the wake.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdAsyncWaitersTest {
    /** More than the calls pool's threads, and than the 16 blocking waits a client once ran at once. */
    private static final int WAITERS = 40;

    /** The Baton threads every waiter of a client shares: its wait timer and its calls pool. */
    private static final Pattern SHARED = Pattern.compile("baton-\\d+-(wait|call)-\\d+");

    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(10))
            .operationTimeout(Duration.ofSeconds(5))
            .build();
    private static final String NAMESPACE = "/waiters";
    private static EtcdServer server;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = EtcdServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void closeResources() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private LockClient client(LockOptions options) {
        LockClient client = Baton.connect(server.uri() + NAMESPACE, options);
        resources.add(client);
        return client;
    }

    private LockBackend backend() {
        LockBackend backend = new EtcdLockBackendProvider().create(server.uri() + NAMESPACE, OPTIONS);
        resources.add(backend);
        return backend;
    }

    private interface Take<T> {
        T take(LockClient client, String name) throws Exception;
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

    @Test
    void anAttemptDecidesOnWhatTheWatchesSawSoAMissedWakeOnlyDelaysTheWaiter() throws Exception {
        String name = "missed-wake-" + UUID.randomUUID();
        LockBackend holder = backend();
        LockBackend waiter = backend();
        Grant first = holder.tryAcquire(request(name)).orElseThrow();
        // The wake is never acted on: only attempts, as the core's fallback makes them, find the turn.
        WaitQueue.Entry entry = waiter.waiting(LockKind.MUTEX).queue().enter(request(name), () -> {});
        assertThat(entry.grantedOnEntry()).isEmpty();
        assertThat(entry.attempt()).as("an attempt while the holder holds").isEmpty();

        assertThat(holder.release(first)).isTrue();
        AtomicReference<Grant> second = new AtomicReference<>();
        Await.condition("an attempt after the holder's release takes the turn", KitTime.grant(), () -> entry.attempt()
                .map(grant -> {
                    second.set(grant);
                    return true;
                })
                .orElse(false));

        assertThat(second.get().fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(waiter.release(second.get())).isTrue();
    }

    private static LockRequest request(String name) {
        return LockRequest.builder(name, UUID.randomUUID().toString(), LockKind.MUTEX, OPTIONS.leaseTime())
                .build();
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
