package dev.baton.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockListener;
import dev.baton.LockOptions;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One measurement of the async-waiters scenario ({@link AsyncWaitersBench}) on one backend, through
 * one API: a holder client takes every name, the measured client lines up its waiters behind it (in a
 * known order per name), the heap is measured with all of them waiting, and then the holder lets go
 * and each waiter is granted, holds for as long as its grant takes to record, and releases.
 *
 * <p>The asynchronous waiters are {@code acquireAsync} futures made on one thread, released with
 * {@code releaseAsync}; the blocking ones are platform threads (this build targets Java 17), each
 * started once the one before waits, so that every name's waiters arrive in a known order.
 */
final class WaiterRun {
    /** The two ways to wait. */
    enum Api {
        ASYNC("async"),
        BLOCKING("blocking, platform threads");

        final String label;

        Api(String label) {
            this.label = label;
        }
    }

    /** What one run measured. */
    record Result(
            Api api,
            int waiters,
            int names,
            GrantOrder order,
            long heapBytesPerWaiter,
            Duration took,
            double cpuMicrosPerGrant,
            int batonThreads,
            String batonThreadKinds,
            int jvmThreads) {
        double grantsPerSecond() {
            return order.granted() / (took.toNanos() / 1e9);
        }
    }

    /** Stack of each blocking waiter's thread: it only waits in Baton's code. */
    private static final long WAITER_STACK_BYTES = 256 * 1024;

    private final String uri;
    private final int waiters;
    private final int names;
    private final Duration timeout;

    WaiterRun(String uri, int waiters, int names, Duration timeout) {
        this.uri = uri;
        this.waiters = waiters;
        this.names = names;
        this.timeout = timeout;
    }

    /** Counts the acquisitions that started waiting. */
    private static final class Waits implements LockListener {
        final AtomicInteger started = new AtomicInteger();

        @Override
        public void waitStarted(String lock, String backend) {
            started.incrementAndGet();
        }
    }

    Result run(Api api) throws InterruptedException {
        LockOptions base =
                LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build();
        Waits waits = new Waits();
        try (LockClient holder = Baton.connect(uri, base);
                LockClient client =
                        Baton.connect(uri, base.toBuilder().listener(waits).build())) {
            // Warm-up: classes, connections and pools, with a tenth of the waiters.
            measure(api, holder, client, waits, "warm-" + UUID.randomUUID() + "-", Math.max(names, waiters / 10));
            return measure(api, holder, client, waits, "waiters-" + UUID.randomUUID() + "-", waiters);
        }
    }

    private Result measure(Api api, LockClient holder, LockClient client, Waits waits, String prefix, int count)
            throws InterruptedException {
        List<Lease> held = new ArrayList<>(names);
        for (int n = 0; n < names; n++) {
            held.add(holder.lock(prefix + n).acquire(timeout));
        }
        GrantOrder order = new GrantOrder(count, names);
        CountDownLatch done = new CountDownLatch(count);
        int waitsBefore = waits.started.get();
        long heapBefore = LeaseScaleBench.usedHeapAfterGc();
        try (BatonThreads threads = BatonThreads.sample()) {
            Object waiting = api == Api.ASYNC
                    ? lineUpAsync(client, prefix, order, done, count)
                    : lineUpBlocking(client, prefix, order, done, count);
            awaitWaiting(waits, waitsBefore + count);
            long heapWaiting = LeaseScaleBench.usedHeapAfterGc();

            OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpu = os.getProcessCpuTime();
            long start = System.nanoTime();
            for (Lease lease : held) {
                lease.close();
            }
            if (!done.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(api.label + ": " + done.getCount() + " of " + count
                        + " waiters were not served within " + BenchMain.format(timeout));
            }
            long took = System.nanoTime() - start;
            cpu = os.getProcessCpuTime() - cpu;
            threads.close();
            // The waiters stay reachable through the heap measurement, as an application's would.
            Reference.reachabilityFence(waiting);
            return new Result(
                    api,
                    count,
                    names,
                    order,
                    Math.max(0, heapWaiting - heapBefore) / count,
                    Duration.ofNanos(took),
                    cpu / 1000.0 / Math.max(1, order.granted()),
                    threads.most(),
                    threads.kinds(),
                    threads.mostInJvm());
        }
    }

    /** The futures, made on this thread in waiter order; each releases its lease once granted. */
    private List<CompletableFuture<Lease>> lineUpAsync(
            LockClient client, String prefix, GrantOrder order, CountDownLatch done, int count) {
        List<CompletableFuture<Lease>> futures = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int waiter = i;
            CompletableFuture<Lease> future =
                    client.lock(prefix + order.nameOf(waiter)).acquireAsync(timeout);
            future.whenComplete((lease, failure) -> {
                if (failure != null) {
                    order.failed();
                    done.countDown();
                    return;
                }
                order.granted(waiter);
                order.leaving(waiter);
                lease.releaseAsync().whenComplete((released, error) -> done.countDown());
            });
            futures.add(future);
        }
        return futures;
    }

    /** The threads, each started once the one before waits, so that each name's line is in waiter order. */
    private List<Thread> lineUpBlocking(
            LockClient client, String prefix, GrantOrder order, CountDownLatch done, int count) {
        List<Thread> threads = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int waiter = i;
            Thread thread = new Thread(
                    null,
                    () -> {
                        try (Lease lease =
                                client.lock(prefix + order.nameOf(waiter)).acquire(timeout)) {
                            order.granted(waiter);
                            order.leaving(waiter);
                        } catch (RuntimeException e) {
                            order.failed();
                        } finally {
                            done.countDown();
                        }
                    },
                    "bench-waiter-" + i,
                    WAITER_STACK_BYTES);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
            awaitParked(thread);
        }
        return threads;
    }

    /** Until {@code thread} waits (in the client's local line, or on the backend), bounded. */
    private void awaitParked(Thread thread) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            if (System.nanoTime() - deadline > 0 || thread.getState() == Thread.State.TERMINATED) {
                throw new IllegalStateException("waiter " + thread.getName() + " did not start waiting");
            }
            LockSupport.parkNanos(20_000);
        }
    }

    /** Until the listener heard {@code target} waits start, bounded. */
    private void awaitWaiting(Waits waits, int target) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (waits.started.get() < target) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + waits.started.get() + " of " + target
                        + " acquisitions started waiting within " + BenchMain.format(timeout));
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
