package dev.baton.tck;

import static dev.baton.tck.LockBackendContract.JVM_THREADS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The kit's closing property ({@link LockBackendContract.Closing}): closing a client releases its
 * leases, fails its pending waiters and ends its threads; {@code inspect} reports the holder where
 * the backend can tell.
 */
abstract class ClosingProperty {
    private final LockBackendContract contract;

    ClosingProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    /**
     * Whether {@code thread} belongs to a JVM-wide pool that a library starts on first use and keeps
     * for every later user, so that no client can own or stop it: the common fork-join pool, the
     * JDK's {@code CompletableFuture} timeout scheduler, Netty's global executor (it ends itself
     * after a second without work) and Reactor's shared schedulers (Lettuce times its Sentinel
     * lookups on {@code Schedulers.parallel()}). A client's own threads are everything else it
     * started.
     */
    private static boolean isSharedLibraryThread(Thread thread) {
        if (thread instanceof java.util.concurrent.ForkJoinWorkerThread worker
                && worker.getPool() == java.util.concurrent.ForkJoinPool.commonPool()) {
            return true;
        }
        String name = thread.getName();
        return name.equals("CompletableFutureDelayScheduler")
                || name.startsWith("globalEventExecutor-")
                || thread.getClass().getName().startsWith("reactor.core.scheduler.");
    }

    private static String describeThreads(List<Thread> threads) {
        StringBuilder text = new StringBuilder();
        for (Thread thread : threads) {
            text.append("\n  ")
                    .append(thread)
                    .append(" (")
                    .append(thread.getState())
                    .append(')');
            for (StackTraceElement frame : thread.getStackTrace()) {
                text.append("\n      at ").append(frame);
            }
        }
        return text.toString();
    }

    /** Alone when the kit runs in parallel: it counts the threads of the whole JVM. */
    @Test
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ_WRITE)
    void closeReleasesHeldLeasesAndLeavesNoThreads() throws Exception {
        DistributedLock checkFirst = contract.client().lock(contract.lockName());
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        LockClient client = contract.fixture().connect(contract.options());
        String first = contract.lockName();
        String second = contract.lockName();
        Lease lease = client.lock(first).acquire(contract.grant());
        client.lock(second).lock();
        client.lock(second).lock();
        Set<Thread> ownedByClient = new HashSet<>(Thread.getAllStackTraces().keySet());
        ownedByClient.removeAll(before);
        ownedByClient.removeIf(
                thread -> isSharedLibraryThread(thread) || contract.fixture().isServerThread(thread));

        client.close();
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(() -> client.lock(first).acquire(Duration.ofSeconds(1)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("closed");
        lease.close(); // harmless after close

        // The client's own threads must end, and so must any other new non-daemon thread (one
        // would keep the application's JVM from exiting).
        List<Thread> leftovers = new ArrayList<>();
        Await.condition(
                "the closed client's threads to end",
                KitTime.CLOSE,
                () -> {
                    leftovers.clear();
                    for (Thread thread : Thread.getAllStackTraces().keySet()) {
                        boolean owned = ownedByClient.contains(thread);
                        boolean newNonDaemon = !before.contains(thread)
                                && !thread.isDaemon()
                                && !isSharedLibraryThread(thread)
                                && !contract.fixture().isServerThread(thread);
                        if ((owned || newNonDaemon) && thread.isAlive()) {
                            leftovers.add(thread);
                        }
                    }
                    return leftovers.isEmpty();
                },
                () -> describeThreads(leftovers));
        assertThat(ownedByClient).as("the client ran a renewal thread").anyMatch(t -> t.getName()
                .startsWith("baton-renewal"));
        DistributedLock checkSecond = contract.client().lock(second);
        assertThat(contract.client().lock(first).tryAcquire())
                .as("released by close")
                .isPresent();
        assertThat(checkSecond.tryAcquire()).as("released by close").isPresent();
        assertThat(checkFirst.tryAcquire()).isPresent();
    }

    @Test
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    void closeFailsPendingWaiters() throws Exception {
        String name = contract.lockName();
        LockClient waiterClient = contract.fixture().connect(contract.options());
        try (Lease held = contract.client().lock(name).acquire(contract.grant())) {
            Waiter waiter = Waiter.start(() -> waiterClient.lock(name).lock(), contract.grant());
            waiterClient.close();
            assertThat(Await.result(waiter.outcome(), contract.grant())).isInstanceOf(LockUnavailableException.class);
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    void inspectReportsTheHolderWhereTheBackendCanTell() {
        RecordingBackend backend = contract.recordingBackend(contract.options());
        LockClient client = contract.track(Baton.open(backend, contract.options()));
        String name = contract.lockName();
        try (Lease lease = client.lock(name).acquire(contract.grant())) {
            Optional<dev.baton.LockInfo> info = backend.inspect(name);
            info.ifPresent(found -> {
                assertThat(found.name()).isEqualTo(name);
                assertThat(found.fencingToken()).isEqualTo(lease.fencingToken());
                assertThat(found.owners()).hasSize(1);
            });
        }
        assertThat(backend.inspect(name)).isEmpty();
    }
}
