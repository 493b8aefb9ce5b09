package dev.baton.tck;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The contract every Baton backend must honour, as one abstract JUnit 5 suite grouped with {@link
 * Nested}. A backend module extends it with a {@link LockBackendFixture} that reaches a real server.
 *
 * <p>Runs with short leases and bounded iteration counts; time bounds are wide and come from one
 * place ({@link KitTime}) because the kit checks behaviour, not speed. No test sleeps to synchronise:
 * waiting is on latches, futures, process output, or a bounded condition loop.
 *
 * <p>Each group is a {@code *Property} class of its own; this class holds the fixture plumbing.
 * A test of a {@link Capability} the fixture does not claim is skipped (a JUnit assumption, so
 * reports count it as skipped), and a test of its own checks that the backend refuses it clearly.
 */
@Timeout(value = KitTime.TEST_TIMEOUT_SECONDS, unit = TimeUnit.SECONDS)
@ExtendWith({BackendInFailures.class, KitVariants.class})
public abstract class LockBackendContract {
    /**
     * The resource lock every kit group holds for reading ({@link SharesTheJvm}) and the test that
     * counts the JVM's threads takes alone; a test class whose fixture changes a server's global
     * state (a member killed) takes it {@code READ_WRITE} to run its tests one at a time.
     */
    public static final String JVM_THREADS = "dev.baton.tck.jvm-threads";

    private final TestScope scope = new TestScope();
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
     * @return short leases (bounded below by {@link #lease(Duration)}), a short operation timeout
     *     ({@link KitTime#operationTimeout()}, stretched on a busy machine) and fast polling (5 ms to
     *     50 ms), so that the kit stays quick
     */
    protected LockOptions options() {
        return LockOptions.builder()
                .leaseTime(lease(KitTime.LEASE))
                .operationTimeout(KitTime.operationTimeout())
                .pollInitialDelay(Duration.ofMillis(5))
                .pollMaxDelay(Duration.ofMillis(50))
                .build();
    }

    /**
     * How long a test gives an acquisition of a free lock, or any other call of a few round trips
     * that should simply succeed: the kit's operation timeout ({@link #options()}, which a fixture of
     * a slow server raises) plus {@link KitTime#SLACK} stretched like it ({@link KitTime#stretch()}).
     *
     * @return the bound, 5 s on an idle machine with the kit's own operation timeout
     */
    protected Duration grant() {
        return options().operationTimeout().plus(KitTime.bound(Duration.ZERO));
    }

    @BeforeEach
    void rememberTestName(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
    }

    @AfterEach
    void closeResources() {
        scope.close();
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
        return scope.track(resource);
    }

    /** Runs {@code task} on a thread of its own (a cached pool, stopped after the test). */
    <T> Future<T> inThread(Callable<T> task) {
        return scope.inThread(task);
    }

    /** A new backend of the fixture's URI that records what the core asks of it. */
    RecordingBackend recordingBackend(LockOptions options) {
        return RecordingBackend.of(fixture().uri(), options);
    }

    // The groups, in KitGroup's order; what each checks is said there and in its *Property class.

    @Nested
    @SharesTheJvm
    class MutualExclusion extends MutualExclusionProperty {
        MutualExclusion() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class Reentrancy extends ReentrancyProperty {
        Reentrancy() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class Timeouts extends TimeoutProperty {
        Timeouts() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class Interrupts extends InterruptProperty {
        Interrupts() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class Ownership extends OwnershipProperty {
        Ownership() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class Renewal extends RenewalProperty {
        Renewal() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class Extend extends ExtendProperty {
        Extend() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class LossDetection extends LossDetectionProperty {
        LossDetection() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class RenewalAtScale extends RenewalAtScaleProperty {
        RenewalAtScale() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class Semaphores extends SemaphoreProperty {
        Semaphores() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    @Tag("fairness")
    class Fairness extends FairnessProperty {
        Fairness() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class MultiLocks extends MultiLockProperty {
        MultiLocks() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class ReadWrite extends ReadWriteProperty {
        ReadWrite() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class BadInput extends BadInputProperty {
        BadInput() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class LeaderElection extends LeadershipProperty {
        LeaderElection() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class StoppedHolder extends StoppedHolderProperty {
        StoppedHolder() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class Operators extends OperatorProperty {
        Operators() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @SharesTheJvm
    class Async extends AsyncProperty {
        Async() {
            super(LockBackendContract.this);
        }
    }

    @Nested
    @Execution(ExecutionMode.CONCURRENT)
    class Closing extends ClosingProperty {
        Closing() {
            super(LockBackendContract.this);
        }
    }
}
