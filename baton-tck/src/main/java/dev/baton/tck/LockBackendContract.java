package dev.baton.tck;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The contract every Baton backend must honour, as one abstract JUnit 5 suite grouped with {@link
 * Nested}. A backend module extends it with a {@link LockBackendFixture} that reaches a real server.
 *
 * <p>Runs with short leases ({@link #LEASE}) and bounded iteration counts; time bounds are wide
 * ({@link #SLACK}) because the kit checks behaviour, not speed. No test sleeps to synchronise:
 * waiting is on latches, futures, process output, or a bounded condition loop.
 *
 * <p>Each group is a {@code *Property} class of its own; this class holds the fixture plumbing.
 * A test of a {@link Capability} the fixture does not claim is skipped (a JUnit assumption, so
 * reports count it as skipped), and a test of its own checks that the backend refuses it clearly.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith({BackendInFailures.class, KitVariants.class})
public abstract class LockBackendContract {
    /**
     * Lease time for most tests: short so that expiry tests finish quickly. A backend whose shortest
     * lease is longer ({@link LockBackendFixture#minimumLeaseTime()}) gets that instead: see {@link
     * #lease(Duration)}.
     */
    protected static final Duration LEASE = Duration.ofSeconds(2);
    /**
     * A resource lock for JUnit's parallel execution. The groups are declared {@link
     * ExecutionMode#CONCURRENT}, so a module that turns parallel execution on (its {@code
     * junit-platform.properties}, with classes left {@code same_thread}) runs the groups of one test
     * class side by side: they keep no shared state (each test takes fresh lock names and its own
     * clients and proxies), and mostly wait on leases and timeouts. Every group shares this lock, and
     * the test that counts the JVM's threads takes it alone. A test class whose fixture changes a
     * server's global state during the run (a member killed) takes it {@code READ_WRITE} on the
     * class, which runs its tests one at a time. Without parallel execution it changes nothing.
     */
    public static final String JVM_THREADS = "dev.baton.tck.jvm-threads";
    /** Bound on one backend operation in the kit. */
    protected static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(2);
    /** Tolerance added to every time bound: scheduling on a loaded 2-core machine, JIT, GC. */
    protected static final Duration SLACK = Duration.ofSeconds(3);

    /**
     * How long after a dead holder's lock came free a client waiting for it must hold it: a waiter's
     * wake-up or next poll plus one grant. Leader election promises a take-over within the freed
     * lease ({@link LockBackendFixture#freedAfter}) plus this.
     */
    protected static final Duration TAKE_OVER = Duration.ofSeconds(1);

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

    /** A new backend of the fixture's URI that records what the core asks of it. */
    RecordingBackend recordingBackend(LockOptions options) {
        return RecordingBackend.of(fixture().uri(), options);
    }

    /** Milliseconds since {@code startNanos}, a {@link System#nanoTime()} reading. */
    static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /** Threads, clients and processes never overlap: see {@link MutualExclusionProperty}. */
    @Nested
    @SharesTheJvm
    class MutualExclusion extends MutualExclusionProperty {
        MutualExclusion() {
            super(LockBackendContract.this);
        }
    }

    /** Reentrant acquisition and release: see {@link ReentrancyProperty}. */
    @Nested
    @SharesTheJvm
    class Reentrancy extends ReentrancyProperty {
        Reentrancy() {
            super(LockBackendContract.this);
        }
    }

    /** Bounded waits end in time and leave nothing behind: see {@link TimeoutProperty}. */
    @Nested
    @SharesTheJvm
    class Timeouts extends TimeoutProperty {
        Timeouts() {
            super(LockBackendContract.this);
        }
    }

    /** Interrupted waiters return promptly: see {@link InterruptProperty}. */
    @Nested
    @SharesTheJvm
    class Interrupts extends InterruptProperty {
        Interrupts() {
            super(LockBackendContract.this);
        }
    }

    /** Only the holder releases; a killed holder's lock comes free: see {@link OwnershipProperty}. */
    @Nested
    @SharesTheJvm
    class Ownership extends OwnershipProperty {
        Ownership() {
            super(LockBackendContract.this);
        }
    }

    /** Renewal, expiry without it, and fencing tokens: see {@link RenewalProperty}. */
    @Nested
    @SharesTheJvm
    class Renewal extends RenewalProperty {
        Renewal() {
            super(LockBackendContract.this);
        }
    }

    /** Extending a lease without auto-renewal: see {@link ExtendProperty}. */
    @Nested
    @SharesTheJvm
    class Extend extends ExtendProperty {
        Extend() {
            super(LockBackendContract.this);
        }
    }

    /** Loss and unreachable servers are reported in time: see {@link LossDetectionProperty}. */
    @Nested
    @SharesTheJvm
    class LossDetection extends LossDetectionProperty {
        LossDetection() {
            super(LockBackendContract.this);
        }
    }

    /** Renewal of many leases, pipelined, and loss reported on time: see {@link RenewalAtScaleProperty}. */
    @Nested
    @SharesTheJvm
    class RenewalAtScale extends RenewalAtScaleProperty {
        RenewalAtScale() {
            super(LockBackendContract.this);
        }
    }

    /** Semaphores, or their clear refusal: see {@link SemaphoreProperty}. */
    @Nested
    @SharesTheJvm
    class Semaphores extends SemaphoreProperty {
        Semaphores() {
            super(LockBackendContract.this);
        }
    }

    /** No client starves: see {@link FairnessProperty}. */
    @Nested
    @SharesTheJvm
    @org.junit.jupiter.api.Tag("fairness")
    class Fairness extends FairnessProperty {
        Fairness() {
            super(LockBackendContract.this);
        }
    }

    /** Multi-locks, on every backend: see {@link MultiLockProperty}. */
    @Nested
    @SharesTheJvm
    class MultiLocks extends MultiLockProperty {
        MultiLocks() {
            super(LockBackendContract.this);
        }
    }

    /** Read/write locks, or their clear refusal: see {@link ReadWriteProperty}. */
    @Nested
    @SharesTheJvm
    class ReadWrite extends ReadWriteProperty {
        ReadWrite() {
            super(LockBackendContract.this);
        }
    }

    /** Bad names and options are refused clearly: see {@link BadInputProperty}. */
    @Nested
    @SharesTheJvm
    class BadInput extends BadInputProperty {
        BadInput() {
            super(LockBackendContract.this);
        }
    }

    /** Leader election across processes: see {@link LeadershipProperty}. */
    @Nested
    @SharesTheJvm
    class LeaderElection extends LeadershipProperty {
        LeaderElection() {
            super(LockBackendContract.this);
        }
    }

    /** Holder descriptions, listing and forced release: see {@link OperatorProperty}. */
    @Nested
    @SharesTheJvm
    class Operators extends OperatorProperty {
        Operators() {
            super(LockBackendContract.this);
        }
    }

    /** Closing a client releases its leases and ends its threads: see {@link ClosingProperty}. */
    @Nested
    @Execution(ExecutionMode.CONCURRENT)
    class Closing extends ClosingProperty {
        Closing() {
            super(LockBackendContract.this);
        }
    }
}
