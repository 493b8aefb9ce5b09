package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockException;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.LockUnavailableException;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockBackendProvider;
import dev.baton.testsupport.TcpProxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The contract every Baton backend must honour, as one abstract JUnit 5 suite grouped with {@link
 * Nested}. A backend module extends it with a {@link LockBackendFixture} that reaches a real server.
 *
 * <p>Runs with short leases ({@link #LEASE}) and bounded iteration counts; time bounds are wide
 * ({@link #SLACK}) because the kit checks behaviour, not speed. No test sleeps to synchronise:
 * waiting is on latches, futures, process output, or a bounded condition loop.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(BackendInFailures.class)
public abstract class LockBackendContract {
    /**
     * Lease time for most tests: short so that expiry tests finish quickly. A backend whose shortest
     * lease is longer ({@link LockBackendFixture#minimumLeaseTime()}) gets that instead: see {@link
     * #lease(Duration)}.
     */
    protected static final Duration LEASE = Duration.ofSeconds(2);
    /**
     * A resource lock for JUnit's parallel execution, which a backend's test class may turn on (a
     * backend with long leases does, {@link LockBackendFixture#minimumLeaseTime()}): every group
     * shares it, and the test that counts the JVM's threads takes it alone. Without parallel
     * execution it changes nothing.
     */
    static final String JVM_THREADS = "dev.baton.tck.jvm-threads";
    /** Bound on one backend operation in the kit. */
    protected static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(2);
    /** Tolerance added to every time bound: scheduling on a loaded 2-core machine, JIT, GC. */
    protected static final Duration SLACK = Duration.ofSeconds(3);

    private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "tck-worker");
        thread.setDaemon(true);
        return thread;
    });
    private String testName = "test";

    /**
     * The backend under test; started once per test class by the subclass.
     *
     * @return the fixture, the same on every call of a test class
     */
    protected abstract LockBackendFixture fixture();

    /**
     * A lease time of {@code wanted}, or the backend's shortest one if that is longer ({@link
     * LockBackendFixture#minimumLeaseTime()}). Every lease time of the kit, and every time bound
     * derived from one, goes through here, so a backend with long leases runs the same tests with
     * proportionally longer waits.
     *
     * @param wanted the lease time a test would use on a backend without a minimum
     * @return {@code wanted}, or the fixture's minimum lease time if that is longer
     */
    protected Duration lease(Duration wanted) {
        Duration minimum = fixture().minimumLeaseTime();
        return wanted.compareTo(minimum) >= 0 ? wanted : minimum;
    }

    /**
     * Options for the kit's clients.
     *
     * @return short leases (bounded below by {@link #lease(Duration)}), a short operation timeout and
     *     fast polling (5 ms to 50 ms), so that the kit stays quick
     */
    protected LockOptions options() {
        return LockOptions.builder()
                .leaseTime(lease(LEASE))
                .operationTimeout(OPERATION_TIMEOUT)
                .pollInitialDelay(Duration.ofMillis(5))
                .pollMaxDelay(Duration.ofMillis(50))
                .build();
    }

    @org.junit.jupiter.api.BeforeEach
    void rememberTestName(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
    }

    @AfterEach
    void closeResources() {
        threads.shutdownNow();
        List<AutoCloseable> toClose = new ArrayList<>(resources);
        Collections.reverse(toClose);
        for (AutoCloseable resource : toClose) {
            try {
                resource.close();
            } catch (Exception e) {
                // a test that failed may leave a client broken; closing is best effort
            }
        }
    }

    /**
     * A client with {@link #options()}, closed after the test.
     *
     * @return a new client of the fixture's backend
     */
    protected LockClient client() {
        return client(options());
    }

    /**
     * A client with the given options, closed after the test.
     *
     * @param options the client's options
     * @return a new client of the fixture's backend
     */
    protected LockClient client(LockOptions options) {
        return track(fixture().connect(options));
    }

    /**
     * A client of another URI (the fixture's backend through a proxy, say), closed after the test.
     *
     * @param uri the URI to connect to, as for {@link Baton#connect(String, LockOptions)}
     * @param options the client's options
     * @return a new client
     */
    protected LockClient clientAt(String uri, LockOptions options) {
        return track(Baton.connect(uri, options));
    }

    /**
     * A fresh lock name per call, so tests never see each other's state.
     *
     * @return {@code tck-<test method>-<random UUID>}
     */
    protected String lockName() {
        return "tck-" + testName + "-" + UUID.randomUUID();
    }

    /**
     * Closes {@code resource} after the test, in reverse order of tracking, ignoring failures.
     *
     * @param <T> the resource's type
     * @param resource a client, a proxy or anything else the test opened
     * @return {@code resource}, for chaining
     */
    protected <T extends AutoCloseable> T track(T resource) {

        resources.add(resource);
        return resource;
    }

    /** Runs {@code task} on a thread of its own (a cached pool, stopped after the test). */
    <T> Future<T> inThread(java.util.concurrent.Callable<T> task) {
        return threads.submit(task);
    }

    RecordingBackend recordingBackend(LockOptions options) {
        String uri = fixture().uri();
        String lower = uri.toLowerCase(Locale.ROOT);
        for (LockBackendProvider provider : ServiceLoader.load(LockBackendProvider.class)) {
            for (String scheme : provider.schemes()) {
                if (lower.startsWith(scheme.toLowerCase(Locale.ROOT) + ":")) {
                    LockBackend backend = provider.create(uri, options);
                    return new RecordingBackend(backend);
                }
            }
        }
        throw new AssertionError("no provider for " + uri);
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /**
     * Whether {@code thread} belongs to a JVM-wide pool that a library starts on first use and keeps
     * for every later user, so that no client can own or stop it: the common fork-join pool, the
     * JDK's {@code CompletableFuture} timeout scheduler, Netty's global executor (it ends itself
     * after a second without work) and Reactor's shared schedulers (Lettuce times its Sentinel
     * lookups on {@code Schedulers.parallel()}). A client's own threads are everything else it
     * started.
     */
    static boolean isSharedLibraryThread(Thread thread) {
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

    private static void awaitWaiting(Thread thread) {
        Await.condition(
                "thread " + thread.getName() + " to wait for the lock",
                Duration.ofSeconds(10),
                () -> thread.getState() == Thread.State.WAITING || thread.getState() == Thread.State.TIMED_WAITING);
    }

    /** A thread blocked in {@code acquisition}; its outcome is null on success or what it threw. */
    private record Waiter(Thread thread, CompletableFuture<Throwable> outcome, AtomicInteger interruptFlag) {}

    /** Starts {@code acquisition} on a new thread and returns once that thread waits for the lock. */
    private static Waiter startWaiter(ThrowingRunnable acquisition) {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        AtomicInteger interruptFlag = new AtomicInteger(-1);
        Thread thread = new Thread(() -> {
            try {
                acquisition.run();
                outcome.complete(null);
            } catch (Throwable t) {
                interruptFlag.set(Thread.currentThread().isInterrupted() ? 1 : 0);
                outcome.complete(t);
            }
        });
        thread.setDaemon(true);
        thread.start();
        awaitWaiting(thread);
        return new Waiter(thread, outcome, interruptFlag);
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Critical sections by many threads, each with its own lock handle; checks exclusion. */
    private static final class CriticalSections {
        final AtomicInteger occupancy = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        long counter; // deliberately not atomic: only the lock protects it

        void run(DistributedLock lock, int iterations) {
            for (int i = 0; i < iterations; i++) {
                try (Lease lease = lock.acquire(Duration.ofSeconds(60))) {
                    if (occupancy.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                    }
                    tokens.add(lease.fencingToken());
                    long seen = counter;
                    Thread.yield();
                    counter = seen + 1;
                    occupancy.decrementAndGet();
                }
            }
        }
    }

    private static void assertStrictlyIncreasing(List<Long> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i))
                    .as("fencing token #%d must exceed #%d", i, i - 1)
                    .isGreaterThan(tokens.get(i - 1));
        }
    }

    @Nested
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class MutualExclusion {
        @Test
        void eightThreadsOnOneClientNeverOverlap() throws Exception {
            LockClient client = client();
            String name = lockName();
            CriticalSections sections = new CriticalSections();
            int threadsCount = 8;
            int iterations = 100;
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threadsCount; t++) {
                done.add(inThread(() -> {
                    sections.run(client.lock(name), iterations);
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(90, TimeUnit.SECONDS);
            }
            assertThat(sections.overlaps.get())
                    .as("overlapping critical sections")
                    .isZero();
            assertThat(sections.counter).isEqualTo((long) threadsCount * iterations);
            assertStrictlyIncreasing(sections.tokens);
        }

        @Test
        void threeClientsNeverOverlap() throws Exception {
            String name = lockName();
            CriticalSections sections = new CriticalSections();
            int clients = 3;
            int threadsPerClient = 3;
            int iterations = 40;
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                LockClient client = client();
                for (int t = 0; t < threadsPerClient; t++) {
                    done.add(inThread(() -> {
                        sections.run(client.lock(name), iterations);
                        return null;
                    }));
                }
            }
            for (Future<?> future : done) {
                future.get(90, TimeUnit.SECONDS);
            }
            assertThat(sections.overlaps.get())
                    .as("overlapping critical sections")
                    .isZero();
            assertThat(sections.counter).isEqualTo((long) clients * threadsPerClient * iterations);
            assertStrictlyIncreasing(sections.tokens);
        }

        @Test
        void threeProcessesNeverOverlap() throws Exception {
            String name = lockName();
            Path dir = Files.createTempDirectory("baton-tck");
            Path counter = dir.resolve("counter");
            Path marker = dir.resolve("inside");
            try {
                Files.writeString(counter, "0", StandardCharsets.UTF_8);
                int processes = 3;
                int iterations = 100;
                List<ForkedJvm> children = new ArrayList<>();
                for (int p = 0; p < processes; p++) {
                    children.add(track(ForkedJvm.start(
                            "count",
                            fixture().uri(),
                            name,
                            Integer.toString(iterations),
                            counter.toString(),
                            marker.toString(),
                            Long.toString(lease(Duration.ofSeconds(10)).toMillis()))));
                }
                for (ForkedJvm child : children) {
                    int exit = child.awaitExit(Duration.ofSeconds(100));
                    assertThat(exit)
                            .as("child exit code (3 = overlap seen); stderr:\n%s", child.stderrTail())
                            .isZero();
                }
                assertThat(Long.parseLong(Files.readString(counter, StandardCharsets.UTF_8)
                                .trim()))
                        .isEqualTo((long) processes * iterations);
                assertThat(marker).doesNotExist();
            } finally {
                try (var files = Files.list(dir)) {
                    for (Path file : files.toList()) {
                        Files.deleteIfExists(file);
                    }
                }
                Files.deleteIfExists(dir);
            }
        }
    }

    @Nested
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class Reentrancy {
        @Test
        void sameThreadGetsSameGrantAndOnlyLastReleaseFrees() {
            String name = lockName();
            DistributedLock lock = client().lock(name);
            DistributedLock other = client().lock(name);

            Lease first = lock.acquire(Duration.ofSeconds(5));
            Lease second = lock.acquire(Duration.ofSeconds(5));
            lock.lock();
            assertThat(lock.holdCount()).isEqualTo(3);
            assertThat(second.fencingToken()).isEqualTo(first.fencingToken());
            assertThat(lock.isHeldByCurrentThread()).isTrue();

            lock.unlock();
            second.close();
            assertThat(lock.holdCount()).isEqualTo(1);
            assertThat(other.tryAcquire()).as("still held after inner releases").isEmpty();

            first.close();
            assertThat(lock.holdCount()).isZero();
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            try (Lease next = other.tryAcquire().orElseThrow(() -> new AssertionError("free after the last release"))) {
                assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
            }
        }

        @Test
        void anotherHandleOfTheSameNameOnTheSameClientIsReentrant() {
            LockClient client = client();
            String name = lockName();
            try (Lease outer = client.lock(name).acquire(Duration.ofSeconds(5));
                    Lease inner = client.lock(name).acquire(Duration.ofSeconds(1))) {
                assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
            }
            assertThat(client().lock(name).tryAcquire()).isPresent();
        }

        @Test
        void leaseMayBeClosedFromAnotherThread() throws Exception {
            String name = lockName();
            DistributedLock lock = client().lock(name);
            Lease lease = lock.acquire(Duration.ofSeconds(5));
            inThread(() -> {
                        lease.close();
                        return null;
                    })
                    .get(10, TimeUnit.SECONDS);
            assertThat(lease.isValid()).isFalse();
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThat(client().lock(name).tryAcquire())
                    .as("free after close from another thread")
                    .isPresent();
        }

        @Test
        void closingALeaseTwiceReleasesOnlyOnce() {
            String name = lockName();
            DistributedLock lock = client().lock(name);
            Lease outer = lock.acquire(Duration.ofSeconds(5));
            Lease inner = lock.acquire(Duration.ofSeconds(5));
            inner.close();
            inner.close();
            assertThat(lock.holdCount()).isEqualTo(1);
            assertThat(client().lock(name).tryAcquire()).isEmpty();
            outer.close();
        }
    }

    @Nested
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class Timeouts {
        @Test
        void tryAcquireIsEmptyWhileAnotherClientHolds() {
            String name = lockName();
            try (Lease held = client().lock(name).acquire(Duration.ofSeconds(5))) {
                DistributedLock other = client().lock(name);
                assertThat(other.tryAcquire()).isEmpty();
                assertThat(other.tryLock()).isFalse();
                assertThat(held.isValid()).isTrue();
            }
        }

        @Test
        void acquireWithTimeoutThrowsWithinTheTimeoutPlusSlack() {
            String name = lockName();
            try (Lease held = client().lock(name).acquire(Duration.ofSeconds(5))) {
                DistributedLock other = client().lock(name);
                Duration timeout = Duration.ofMillis(700);
                long start = System.nanoTime();
                assertThatThrownBy(() -> other.acquire(timeout))
                        .isInstanceOf(LockTimeoutException.class)
                        .hasMessageContaining(name)
                        .hasMessageContaining(fixture().connect(options()).backendName());
                long elapsed = millisSince(start);
                assertThat(elapsed).isBetween(timeout.toMillis() - 50, timeout.toMillis() + SLACK.toMillis());
                assertThat(held.isValid()).isTrue();
            }
        }

        @Test
        void tryLockWithTimeReturnsFalseInTime() throws InterruptedException {
            String name = lockName();
            try (Lease held = client().lock(name).acquire(Duration.ofSeconds(5))) {
                long start = System.nanoTime();
                assertThat(client().lock(name).tryLock(300, TimeUnit.MILLISECONDS))
                        .isFalse();
                assertThat(millisSince(start)).isBetween(250L, 300 + SLACK.toMillis());
            }
        }

        @Test
        void timedOutWaiterLeavesNothingBehind() {
            String name = lockName();
            LockClient waiterClient = client();
            Lease held = client().lock(name).acquire(Duration.ofSeconds(5));
            assertThatThrownBy(() -> waiterClient.lock(name).acquire(Duration.ofMillis(200)))
                    .isInstanceOf(LockTimeoutException.class);
            held.close();
            assertThat(client().lock(name).tryAcquire())
                    .as("a third client takes the lock at once after the holder released")
                    .isPresent();
        }

        @Test
        void timeoutsAndNamesAreValidated() {
            DistributedLock lock = client().lock(lockName());
            assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(-1)))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("negative");
            assertThatThrownBy(() -> lock.acquire(null))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("null");
            assertThatThrownBy(lock::newCondition)
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("conditions are not supported");
        }
    }

    @Nested
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class Interrupts {
        @Test
        void interruptedWaiterReturnsPromptlyAndLeavesNoState() throws Exception {
            String name = lockName();
            LockClient waiterClient = client();
            Lease held = client().lock(name).acquire(Duration.ofSeconds(5));
            Waiter waiter = startWaiter(() -> waiterClient.lock(name).acquire());

            long start = System.nanoTime();
            waiter.thread().interrupt();
            Throwable thrown = waiter.outcome().get(10, TimeUnit.SECONDS);
            assertThat(millisSince(start)).as("prompt return").isLessThan(SLACK.toMillis());
            assertThat(thrown).isInstanceOf(LockException.class).hasCauseInstanceOf(InterruptedException.class);
            assertThat(waiter.interruptFlag().get())
                    .as("interrupt flag restored")
                    .isEqualTo(1);

            held.close();
            assertThat(waiterClient.lock(name).tryAcquire())
                    .as("the interrupted waiter's client can take the lock at once")
                    .isPresent();
        }

        @Test
        void lockInterruptiblyThrowsInterruptedException() throws Exception {
            String name = lockName();
            LockClient waiterClient = client();
            try (Lease held = client().lock(name).acquire(Duration.ofSeconds(5))) {
                Waiter waiter = startWaiter(() -> waiterClient.lock(name).lockInterruptibly());
                waiter.thread().interrupt();
                assertThat(waiter.outcome().get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
                assertThat(held.isValid()).isTrue();
            }
            assertThat(client().lock(name).tryAcquire()).isPresent();
        }

        @Test
        void interruptedThreadDoesNotStartWaitingInterruptibly() {
            DistributedLock lock = client().lock(lockName());
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
            } finally {
                Thread.interrupted();
            }
        }
    }

    @Nested
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class Ownership {
        @Test
        void strangersUnlockThrowsAndDoesNotRelease() throws Exception {
            LockClient client = client();
            String name = lockName();
            DistributedLock lock = client.lock(name);
            lock.lock();
            try {
                Throwable thrown = inThread(
                                () -> catchThrowable(() -> client.lock(name).unlock()))
                        .get(10, TimeUnit.SECONDS);
                assertThat(thrown)
                        .isInstanceOf(IllegalMonitorStateException.class)
                        .hasMessageContaining(name);
                assertThat(client().lock(name).tryAcquire()).as("still held").isEmpty();
                assertThat(lock.isHeldByCurrentThread()).isTrue();
            } finally {
                lock.unlock();
            }
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        }

        @Test
        void holderKilledWithSigkillFreesTheLockWithinItsLease() throws Exception {
            String name = lockName();
            Duration lease = lease(LEASE);
            ForkedJvm child = track(ForkedJvm.start("hold", fixture().uri(), name, Long.toString(lease.toMillis())));
            long childToken = Long.parseLong(child.awaitLine("ACQUIRED", Duration.ofSeconds(60)));
            DistributedLock lock = client().lock(name);
            assertThat(lock.tryAcquire()).as("held by the child").isEmpty();

            long killedAt = System.nanoTime();
            child.kill9();
            try (Lease next = lock.acquire(lease.plus(SLACK).plus(Duration.ofSeconds(10)))) {
                assertThat(millisSince(killedAt))
                        .isLessThanOrEqualTo(lease.plus(SLACK).toMillis());
                assertThat(next.fencingToken()).isGreaterThan(childToken);
            }
        }
    }

    @Nested
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class Renewal {
        @Test
        void autoRenewalKeepsTheLockForThreeLeaseTimesAndStopsOnRelease() {
            RecordingBackend backend = recordingBackend(options());
            Duration lease = lease(Duration.ofSeconds(1));
            LockOptions shortLease = options().withLeaseTime(lease);
            LockClient client = track(Baton.open(backend, shortLease));
            String name = lockName();
            DistributedLock other = client().lock(name);

            Lease held = client.lock(name).acquire(Duration.ofSeconds(5));
            long start = System.nanoTime();
            while (millisSince(start) < lease.toMillis() * 3 + 300) {
                assertThat(held.isValid()).isTrue();
                assertThat(other.tryAcquire())
                        .as("held past its lease time by renewal")
                        .isEmpty();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
            held.checkValid();
            assertThat(backend.renewals.get())
                    .as("renewals during three lease times")
                    .isGreaterThanOrEqualTo(5);

            held.close();
            int renewalsAtRelease = backend.renewals.get();
            assertThat(held.isValid()).isFalse();
            try (Lease next = other.tryAcquire().orElseThrow(() -> new AssertionError("free after release"))) {
                // Watch one lease time: a renewal scheduled before the release must not run.
                long watchStart = System.nanoTime();
                while (millisSince(watchStart) < lease.toMillis()) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                }
                assertThat(backend.renewals.get()).isEqualTo(renewalsAtRelease);
                assertThat(backend.renewalsAfterRelease.get()).isZero();
                assertThat(next.isValid()).isTrue();
            }
        }

        @Test
        void withoutAutoRenewalTheLeaseExpiresAndIsReportedLost() throws Exception {
            String name = lockName();
            Duration lease = lease(Duration.ofMillis(800));
            LockOptions noRenew =
                    options().toBuilder().leaseTime(lease).autoRenew(false).build();
            Lease held = client(noRenew).lock(name).acquire(Duration.ofSeconds(5));
            CompletableFuture<LockLostException> lost = new CompletableFuture<>();
            held.onLost(lost::complete);
            assertThat(lost.get(lease.plus(SLACK).toMillis(), TimeUnit.MILLISECONDS))
                    .hasMessageContaining(name);
            assertThat(held.isValid()).isFalse();
            try (Lease next = client().lock(name).acquire(SLACK)) {
                assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            }
            held.close(); // must not throw for a lost lease
        }

        @Test
        void fencingTokensStrictlyIncreaseOverAThousandAcquisitionsByThreeClients() {
            String name = lockName();
            List<DistributedLock> locks = List.of(client().lock(name), client().lock(name), client().lock(name));
            List<Long> tokens = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                try (Lease lease = locks.get(i % locks.size()).acquire(Duration.ofSeconds(10))) {
                    tokens.add(lease.fencingToken());
                }
            }
            assertStrictlyIncreasing(tokens);
            assertThat(new HashSet<>(tokens)).hasSize(1000);
        }
    }

    @Nested
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class LossDetection {
        @Test
        void leaseWhoseRenewalBecomesImpossibleIsReportedLost() throws Exception {
            String name = lockName();
            TcpProxy proxy = track(TcpProxy.start(fixture().serverAddress()));
            Duration lease = lease(Duration.ofMillis(1500));
            LockClient viaProxy =
                    clientAt(fixture().uriVia(proxy.address()), options().withLeaseTime(lease));
            Lease held = viaProxy.lock(name).acquire(Duration.ofSeconds(10));
            CompletableFuture<LockLostException> lost = new CompletableFuture<>();
            held.onLost(lost::complete);
            assertThat(held.isValid()).isTrue();

            proxy.cut();
            LockLostException reported =
                    lost.get(lease.plus(OPERATION_TIMEOUT).plus(SLACK).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(reported).hasMessageContaining(name);
            assertThat(held.isValid()).isFalse();
            assertThatThrownBy(held::checkValid).isInstanceOf(LockLostException.class);
            CompletableFuture<LockLostException> late = new CompletableFuture<>();
            held.onLost(late::complete);
            assertThat(late)
                    .as("a listener added after the loss is called at once")
                    .isCompleted();

            try (Lease next = client().lock(name).acquire(lease.plus(SLACK))) {
                assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            }
            held.close(); // never throws for a lost lease
        }

        @Test
        void unreachableBackendFailsWithinTheOperationTimeout() {
            String name = lockName();
            TcpProxy proxy = track(TcpProxy.start(fixture().serverAddress()));
            LockClient viaProxy = clientAt(fixture().uriVia(proxy.address()), options());
            viaProxy.lock(name).acquire(Duration.ofSeconds(10)).close();
            proxy.cut();

            long start = System.nanoTime();
            assertThatThrownBy(() -> viaProxy.lock(name).acquire(Duration.ofSeconds(60)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(name);
            assertThat(millisSince(start))
                    .isLessThanOrEqualTo(OPERATION_TIMEOUT.plus(SLACK).toMillis());

            start = System.nanoTime();
            assertThatThrownBy(() -> viaProxy.lock(name).tryAcquire()).isInstanceOf(LockUnavailableException.class);
            assertThat(millisSince(start))
                    .isLessThanOrEqualTo(OPERATION_TIMEOUT.plus(SLACK).toMillis());

            proxy.restore();
            try (Lease lease = viaProxy.lock(name).acquire(Duration.ofSeconds(10))) {
                assertThat(lease.isValid())
                        .as("the client recovers when the server is back")
                        .isTrue();
            }
        }

        @Test
        void serverThatWasNeverThereFailsWithinTheOperationTimeout() throws IOException {
            int closedPort;
            try (ServerSocket socket = new ServerSocket(0)) {
                closedPort = socket.getLocalPort();
            }
            LockClient nowhere = clientAt(fixture().uriVia(new InetSocketAddress("127.0.0.1", closedPort)), options());
            long start = System.nanoTime();
            assertThatThrownBy(() -> nowhere.lock(lockName()).acquire(Duration.ofSeconds(60)))
                    .isInstanceOf(LockUnavailableException.class);
            assertThat(millisSince(start))
                    .isLessThanOrEqualTo(OPERATION_TIMEOUT.plus(SLACK).toMillis());
        }
    }

    /** Renewal of many leases, pipelined, and loss reported on time: see {@link RenewalAtScaleProperty}. */
    @Nested
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class RenewalAtScale extends RenewalAtScaleProperty {
        RenewalAtScale() {
            super(LockBackendContract.this);
        }
    }

    /** Semaphores, or their clear refusal: see {@link SemaphoreProperty}. */
    @Nested
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class Semaphores extends SemaphoreProperty {
        Semaphores() {
            super(LockBackendContract.this);
        }
    }

    /** No client starves: see {@link FairnessProperty}. */
    @Nested
    @org.junit.jupiter.api.Tag("fairness")
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class Fairness extends FairnessProperty {
        Fairness() {
            super(LockBackendContract.this);
        }
    }

    /** Multi-locks, on every backend: see {@link MultiLockProperty}. */
    @Nested
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class MultiLocks extends MultiLockProperty {
        MultiLocks() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class ReadWrite {
        @Test
        void readersShareAndAWriterExcludesThem() {
            String name = lockName();
            DistributedReadWriteLock first = client().readWriteLock(name);
            DistributedReadWriteLock second = client().readWriteLock(name);
            DistributedReadWriteLock writer = client().readWriteLock(name);
            if (!fixture().capabilities().contains(Capability.SHARED_MODE)) {
                assertThatThrownBy(() -> first.readLock().acquire(Duration.ofSeconds(1)))
                        .isInstanceOf(UnsupportedOperationException.class);
                return;
            }
            Lease readerOne = first.readLock().acquire(Duration.ofSeconds(5));
            Lease readerTwo = second.readLock().acquire(Duration.ofSeconds(5));
            assertThat(readerOne.isValid() && readerTwo.isValid()).isTrue();
            assertThat(writer.writeLock().tryAcquire())
                    .as("writer excluded by readers")
                    .isEmpty();

            readerOne.close();
            assertThat(writer.writeLock().tryAcquire())
                    .as("writer still excluded by one reader")
                    .isEmpty();
            readerTwo.close();
            try (Lease written = writer.writeLock().acquire(Duration.ofSeconds(5))) {
                assertThat(first.readLock().tryAcquire())
                        .as("reader excluded by writer")
                        .isEmpty();
                assertThat(second.writeLock().tryAcquire())
                        .as("writer excluded by writer")
                        .isEmpty();
                assertThat(written.fencingToken()).isGreaterThan(readerTwo.fencingToken());
            }
            try (Lease again = first.readLock().acquire(Duration.ofSeconds(5))) {
                assertThat(again.isValid()).isTrue();
            }
        }

        @Test
        void readerWaitingForAWriterGetsTheLockWhenItIsReleased() throws Exception {
            if (!fixture().capabilities().contains(Capability.SHARED_MODE)) {
                return;
            }
            String name = lockName();
            Lease written = client().readWriteLock(name).writeLock().acquire(Duration.ofSeconds(5));
            DistributedReadWriteLock readers = client().readWriteLock(name);
            CountDownLatch bothIn = new CountDownLatch(2);
            List<Future<Long>> results = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                results.add(inThread(() -> {
                    try (Lease lease = readers.readLock().acquire(Duration.ofSeconds(20))) {
                        bothIn.countDown();
                        // Both readers must be inside together.
                        if (!bothIn.await(20, TimeUnit.SECONDS)) {
                            throw new AssertionError("readers did not share the lock");
                        }
                        return lease.fencingToken();
                    }
                }));
            }
            written.close();
            for (Future<Long> result : results) {
                assertThat(result.get(30, TimeUnit.SECONDS)).isGreaterThan(written.fencingToken());
            }
        }

        @Test
        void upgradingFromReadToWriteIsRefusedInsteadOfDeadlocking() {
            if (!fixture().capabilities().contains(Capability.SHARED_MODE)) {
                return;
            }
            DistributedReadWriteLock lock = client().readWriteLock(lockName());
            try (Lease read = lock.readLock().acquire(Duration.ofSeconds(5))) {
                assertThatThrownBy(() -> lock.writeLock().acquire(Duration.ofSeconds(1)))
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("read lock");
                assertThat(read.isValid()).isTrue();
            }
        }
    }

    @Nested
    @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
    class BadInput {
        @Test
        void badNamesAreRejectedWithClearMessages() {
            LockClient client = client();
            String tooLong = "é".repeat(257); // 514 UTF-8 bytes
            for (String bad : new String[] {null, "", tooLong, "line\nbreak", "nul\u0000", "tab\tname", "\ud800"}) {
                assertThatThrownBy(() -> client.lock(bad))
                        .as("name %s", bad == null ? "null" : bad.length() > 20 ? bad.substring(0, 20) : bad)
                        .isInstanceOf(LockConfigurationException.class)
                        .hasMessageContaining("512 UTF-8 bytes")
                        .hasMessageContaining(client.backendName());
                assertThatThrownBy(() -> client.readWriteLock(bad)).isInstanceOf(LockConfigurationException.class);
            }
        }

        @Test
        void longestAndUnusualNamesWork() {
            LockClient client = client();
            String suffix = UUID.randomUUID().toString().substring(0, 8);
            List<String> names = new ArrayList<>(List.of(
                    ("x" + suffix).repeat(1) + "é".repeat((512 - 9) / 2), // 9 + 502 = 511 bytes
                    "a".repeat(512 - suffix.length()) + suffix, // exactly 512 bytes
                    "../../etc/passwd-" + suffix,
                    "ключ/с пробелом:*?'\"%_" + suffix,
                    "emoji-\uD83D\uDD12-" + suffix));
            for (String name : names) {
                try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
                    assertThat(lease.name()).isEqualTo(name);
                    assertThat(client().lock(name).tryAcquire())
                            .as("held: %s", name)
                            .isEmpty();
                }
            }
            // Names that differ only after a long common prefix are different locks.
            String prefix = "p".repeat(500) + suffix;
            try (Lease one = client.lock(prefix + "1").acquire(Duration.ofSeconds(5));
                    Lease two = client().lock(prefix + "2").acquire(Duration.ofSeconds(5))) {
                assertThat(one.isValid() && two.isValid()).isTrue();
            }
        }

        @Test
        void aLeaseShorterThanTheBackendAcceptsIsRefused() {
            Duration minimum = fixture().minimumLeaseTime();
            if (minimum.isZero()) {
                return;
            }
            LockOptions tooShort = options().withLeaseTime(minimum.minusMillis(1));
            String name = lockName();
            assertThatThrownBy(() -> fixture().connect(tooShort))
                    .as("a client whose lease time is shorter than %s", minimum)
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("leaseTime");
            DistributedLock lock = client().lock(name, tooShort);
            assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(1)))
                    .as("a lock whose lease time is shorter than %s", minimum)
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("leaseTime")
                    .hasMessageContaining(name);
            try (Lease lease = client().lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(lease.isValid())
                        .as("the refused attempt left nothing behind")
                        .isTrue();
            }
        }

        @Test
        void badOptionsAreRejectedWithClearMessages() {
            assertThatThrownBy(() -> LockOptions.builder().leaseTime(Duration.ZERO))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("leaseTime");
            assertThatThrownBy(() -> LockOptions.builder().leaseTime(Duration.ofSeconds(-1)))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("leaseTime")
                    .hasMessageContaining("positive");
            assertThatThrownBy(() -> LockOptions.builder().leaseTime(null))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("leaseTime");
            assertThatThrownBy(() -> LockOptions.builder().operationTimeout(Duration.ofMillis(-5)))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("operationTimeout");
            assertThatThrownBy(() -> client().lock(lockName(), null)).isInstanceOf(LockConfigurationException.class);
        }
    }

    @Nested
    class Closing {
        /** Alone when the kit runs in parallel: it counts the threads of the whole JVM. */
        @Test
        @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ_WRITE)
        void closeReleasesHeldLeasesAndLeavesNoThreads() throws Exception {
            DistributedLock checkFirst = client().lock(lockName());
            Set<Thread> before = Thread.getAllStackTraces().keySet();
            LockClient client = fixture().connect(options());
            String first = lockName();
            String second = lockName();
            Lease lease = client.lock(first).acquire(Duration.ofSeconds(5));
            client.lock(second).lock();
            client.lock(second).lock();
            Set<Thread> ownedByClient = new HashSet<>(Thread.getAllStackTraces().keySet());
            ownedByClient.removeAll(before);
            ownedByClient.removeIf(
                    thread -> isSharedLibraryThread(thread) || fixture().isServerThread(thread));

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
                    Duration.ofSeconds(10),
                    () -> {
                        leftovers.clear();
                        for (Thread thread : Thread.getAllStackTraces().keySet()) {
                            boolean owned = ownedByClient.contains(thread);
                            boolean newNonDaemon = !before.contains(thread)
                                    && !thread.isDaemon()
                                    && !isSharedLibraryThread(thread)
                                    && !fixture().isServerThread(thread);
                            if ((owned || newNonDaemon) && thread.isAlive()) {
                                leftovers.add(thread);
                            }
                        }
                        return leftovers.isEmpty();
                    },
                    () -> describeThreads(leftovers));
            assertThat(ownedByClient).as("the client ran a renewal thread").anyMatch(t -> t.getName()
                    .startsWith("baton-renewal"));
            DistributedLock checkSecond = client().lock(second);
            assertThat(client().lock(first).tryAcquire())
                    .as("released by close")
                    .isPresent();
            assertThat(checkSecond.tryAcquire()).as("released by close").isPresent();
            assertThat(checkFirst.tryAcquire()).isPresent();
        }

        @Test
        @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
        void closeFailsPendingWaiters() throws Exception {
            String name = lockName();
            LockClient waiterClient = fixture().connect(options());
            try (Lease held = client().lock(name).acquire(Duration.ofSeconds(5))) {
                Waiter waiter = startWaiter(() -> waiterClient.lock(name).lock());
                waiterClient.close();
                assertThat(waiter.outcome().get(10, TimeUnit.SECONDS)).isInstanceOf(LockUnavailableException.class);
                assertThat(held.isValid()).isTrue();
            }
        }

        @Test
        @ResourceLock(value = JVM_THREADS, mode = ResourceAccessMode.READ)
        void inspectReportsTheHolderWhereTheBackendCanTell() {
            RecordingBackend backend = recordingBackend(options());
            LockClient client = track(Baton.open(backend, options()));
            String name = lockName();
            try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
                Optional<dev.baton.spi.LockInfo> info = backend.inspect(name);
                info.ifPresent(found -> {
                    assertThat(found.name()).isEqualTo(name);
                    assertThat(found.fencingToken()).isEqualTo(lease.fencingToken());
                    assertThat(found.owners()).hasSize(1);
                });
            }
            assertThat(backend.inspect(name)).isEmpty();
        }
    }
}
