package dev.baton.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Runs a {@link Scenario} against a {@link LockSubject}: the same loop for every subject, so rows
 * compare like with like. Each iteration acquires, checks occupancy inside the critical section
 * (before and after the {@linkplain BenchSettings#hold() hold}, if any), and releases; pair latency
 * is from the acquire call to the release returning; hand-off latency is from a holder's release()
 * call to the next holder's acquire returning (other thread only). CPU per pair is over the measured
 * runs only: this JVM's ({@link CpuSample}: the clients, and servers that run inside it) and the
 * server processes' it started.
 *
 * <p>In contended rows the same loop also records {@link ScenarioResult.Fairness}: each acquire
 * call's wait (call to return), which thread each grant went to, and whether it went to a thread
 * other than the last one to release. The semaphore row ({@link Scenario#S8}) runs only for subjects
 * that {@linkplain LockSubject#hasSemaphores() have semaphores}; it counts an overlap when more
 * holders than permits are inside.
 */
public final class BenchRunner {
    private final BenchSettings settings;
    private final Progress progress;

    /** What the runner reports while it works. */
    public interface Progress {
        /** A run of {@code subject} in {@code scenario} starts: its warm-up, then the measured run. */
        void runStarting(LockSubject subject, Scenario scenario, int run);

        /** Anything else worth a line: an iteration that failed, a client that would not close. */
        void note(String line);
    }

    public BenchRunner(BenchSettings settings, Progress progress) {
        this.settings = settings;
        this.progress = progress;
    }

    /** Reports every run and note as one line of text. */
    public BenchRunner(BenchSettings settings, Consumer<String> progress) {
        this(settings, new Progress() {
            @Override
            public void runStarting(LockSubject subject, Scenario scenario, int run) {
                progress.accept(label(subject, scenario) + " " + scenario + ": run " + run + "/" + settings.runs()
                        + " (after " + settings.warmup() + " warm-up)");
            }

            @Override
            public void note(String line) {
                progress.accept(line);
            }
        });
    }

    /**
     * Runs {@code scenario} for every subject, interleaved: each measured run visits every subject in
     * turn (starting with a different one each run), so that JIT compilation of shared code (a
     * driver, the embedded server) and drifts of a busy machine weigh on every subject alike instead
     * of on whichever comes first. Only one subject's clients exist at a time (a database has a
     * connection limit); each run starts with fresh clients and the warm-up.
     */
    public List<ScenarioResult> runInterleaved(List<LockSubject> all, Scenario scenario) {
        List<LockSubject> subjects = runnable(all, scenario);
        List<List<Measurement>> measured = new ArrayList<>();
        subjects.forEach(subject -> measured.add(new ArrayList<>()));
        for (int run = 1; run <= settings.runs(); run++) {
            for (int k = 0; k < subjects.size(); k++) {
                int s = (k + run - 1) % subjects.size();
                LockSubject subject = subjects.get(s);
                List<LockSubject.Client> clients = new ArrayList<>();
                try {
                    int clientCount = scenario.clientPerThread() ? settings.threadsFor(scenario) : 1;
                    for (int i = 0; i < clientCount; i++) {
                        clients.add(subject.newClient());
                    }
                    String prefix = "bench-" + scenario + "-" + UUID.randomUUID();
                    progress.runStarting(subject, scenario, run);
                    if (!settings.warmup().isZero()) {
                        measure(clients, scenario, prefix, settings.warmup().toNanos());
                    }
                    measured.get(s)
                            .add(measure(
                                    clients, scenario, prefix, settings.run().toNanos()));
                } finally {
                    for (LockSubject.Client client : clients) {
                        try {
                            client.close();
                        } catch (RuntimeException e) {
                            progress.note(subject.name() + ": closing a client failed: " + e);
                        }
                    }
                }
            }
        }
        List<ScenarioResult> results = new ArrayList<>();
        for (int s = 0; s < subjects.size(); s++) {
            results.add(summarise(subjects.get(s), scenario, measured.get(s)));
        }
        return results;
    }

    /** The row label of {@code subject} in {@code scenario}: its semaphore's name in S8. */
    public static String label(LockSubject subject, Scenario scenario) {
        return scenario.semaphore() ? subject.semaphoreName() : subject.name();
    }

    /** The subjects that take part in {@code scenario} ({@link LockSubject#runs}). */
    private static List<LockSubject> runnable(List<LockSubject> subjects, Scenario scenario) {
        return subjects.stream().filter(subject -> subject.runs(scenario)).toList();
    }

    private ScenarioResult summarise(LockSubject subject, Scenario scenario, List<Measurement> runs) {
        List<Double> rates = new ArrayList<>();
        Histogram pairs = new Histogram(3);
        Histogram handoffs = new Histogram(3);
        Histogram waits = new Histogram(3);
        long toAnother = 0;
        long afterRelease = 0;
        double minShare = Double.NaN;
        double maxShare = Double.NaN;
        long overlaps = 0;
        long errors = 0;
        long totalPairs = 0;
        long clientCpu = 0;
        long serverCpu = 0;
        for (Measurement measured : runs) {
            totalPairs += measured.pairs;
            clientCpu = clientCpu < 0 || measured.clientCpuNanos < 0 ? -1 : clientCpu + measured.clientCpuNanos;
            serverCpu = serverCpu < 0 || measured.serverCpuNanos < 0 ? -1 : serverCpu + measured.serverCpuNanos;
            rates.add(measured.pairs / (measured.elapsedNanos / 1e9));
            pairs.add(measured.pairLatency);
            handoffs.add(measured.handoffLatency);
            waits.add(measured.waitLatency);
            toAnother += measured.toAnother;
            afterRelease += measured.afterRelease;
            long granted = java.util.Arrays.stream(measured.grants).sum();
            if (granted > 0) {
                // The least even run: the smallest share of any run, the largest of any run.
                double least = java.util.Arrays.stream(measured.grants).min().orElse(0) * 100.0 / granted;
                double most = java.util.Arrays.stream(measured.grants).max().orElse(0) * 100.0 / granted;
                minShare = Double.isNaN(minShare) ? least : Math.min(minShare, least);
                maxShare = Double.isNaN(maxShare) ? most : Math.max(maxShare, most);
            }
            overlaps += measured.overlaps;
            errors += measured.errors;
        }
        List<Double> sorted = new ArrayList<>(rates);
        Collections.sort(sorted);
        double median = sorted.get(sorted.size() / 2);
        boolean contended = scenario.contended() && handoffs.getTotalCount() > 0;
        ScenarioResult.Fairness fairness = scenario.contended() && afterRelease > 0
                ? new ScenarioResult.Fairness(
                        toAnother * 100.0 / afterRelease,
                        micros(waits, 99),
                        waits.getMaxValue() / 1000.0,
                        minShare,
                        maxShare)
                : ScenarioResult.Fairness.NOT_MEASURED;
        return new ScenarioResult(
                label(subject, scenario),
                scenario,
                median,
                rates,
                micros(pairs, 50),
                micros(pairs, 99),
                contended ? micros(handoffs, 50) : Double.NaN,
                contended ? micros(handoffs, 99) : Double.NaN,
                overlaps,
                errors,
                perPairMicros(clientCpu, totalPairs),
                perPairMicros(serverCpu, totalPairs),
                fairness);
    }

    private static double perPairMicros(long cpuNanos, long pairs) {
        return cpuNanos < 0 || pairs == 0 ? Double.NaN : cpuNanos / 1000.0 / pairs;
    }

    /**
     * Runs {@code scenario} for one subject, all runs on the same clients.
     *
     * @throws IllegalArgumentException for the semaphore scenario if the subject has no semaphores
     */
    public ScenarioResult run(LockSubject subject, Scenario scenario) {
        if (runnable(List.of(subject), scenario).isEmpty()) {
            throw new IllegalArgumentException(subject.name() + " has no semaphores: it cannot run " + scenario);
        }
        List<LockSubject.Client> clients = new ArrayList<>();
        try {
            int clientCount = scenario.clientPerThread() ? settings.threadsFor(scenario) : 1;
            for (int i = 0; i < clientCount; i++) {
                clients.add(subject.newClient());
            }
            String prefix = "bench-" + scenario + "-" + UUID.randomUUID();
            progress.note(subject.name() + " " + scenario + ": warming up");
            if (!settings.warmup().isZero()) {
                measure(clients, scenario, prefix, settings.warmup().toNanos());
            }
            List<Measurement> runs = new ArrayList<>();
            for (int run = 1; run <= settings.runs(); run++) {
                progress.note(subject.name() + " " + scenario + ": run " + run + "/" + settings.runs());
                runs.add(measure(clients, scenario, prefix, settings.run().toNanos()));
            }
            return summarise(subject, scenario, runs);
        } finally {
            for (LockSubject.Client client : clients) {
                try {
                    client.close();
                } catch (RuntimeException e) {
                    progress.note(subject.name() + ": closing a client failed: " + e);
                }
            }
        }
    }

    /**
     * Keeps the lock until {@code until} ({@link System#nanoTime()}) without using the CPU, like a
     * critical section that waits on I/O. Not a synchronisation: the lock is what excludes others.
     */
    private static void hold(long until) {
        long left;
        while ((left = until - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    private static double micros(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1000.0;
    }

    /**
     * One run. {@code grants} holds each thread's grants; {@code afterRelease} counts the grants that
     * followed some release, {@code toAnother} those of them that went to a thread other than the
     * last releaser (contended rows only).
     */
    private record Measurement(
            long pairs,
            long elapsedNanos,
            Histogram pairLatency,
            Histogram handoffLatency,
            Histogram waitLatency,
            long[] grants,
            long afterRelease,
            long toAnother,
            long overlaps,
            long errors,
            long clientCpuNanos,
            long serverCpuNanos) {}

    private Measurement measure(
            List<LockSubject.Client> clients, Scenario scenario, String prefix, long durationNanos) {
        int threads = settings.threadsFor(scenario);
        long holdNanos = settings.hold().toNanos();
        Recorder pairLatency = new Recorder(3);
        Recorder handoffLatency = new Recorder(3);
        Recorder waitLatency = new Recorder(3);
        // Each thread writes only its own slot; read after join().
        long[] grants = new long[threads];
        long[] afterRelease = new long[threads];
        long[] toAnother = new long[threads];
        int allowedInside = scenario.permits(threads);
        LongAdder pairs = new LongAdder();
        LongAdder overlaps = new LongAdder();
        LongAdder errors = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong lastReleaseCall = new AtomicLong();
        AtomicLong lastReleaser = new AtomicLong(-1);
        AtomicInteger[] occupancy = new AtomicInteger[threads];
        for (int i = 0; i < threads; i++) {
            occupancy[i] = new AtomicInteger();
        }
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int index = t;
            LockSubject.Client client = clients.get(scenario.clientPerThread() ? t : 0);
            String name = scenario.contended() ? prefix : prefix + "-" + t;
            AtomicInteger inside = occupancy[scenario.contended() ? 0 : t];
            Thread worker = new Thread(
                    () -> {
                        ready.countDown();
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            return;
                        }
                        while (!stop.get()) {
                            try {
                                long start = System.nanoTime();
                                LockSubject.Held held = scenario.semaphore()
                                        ? client.acquirePermit(name, allowedInside)
                                        : client.acquire(name);
                                long acquired = System.nanoTime();
                                if (scenario.contended()) {
                                    long previous = lastReleaseCall.get();
                                    long releaser = lastReleaser.get();
                                    if (previous != 0 && releaser != index && !scenario.semaphore()) {
                                        handoffLatency.recordValue(Math.max(0, acquired - previous));
                                    }
                                    waitLatency.recordValue(acquired - start);
                                    grants[index]++;
                                    if (releaser >= 0) {
                                        afterRelease[index]++;
                                        if (releaser != index) {
                                            toAnother[index]++;
                                        }
                                    }
                                }
                                if (inside.incrementAndGet() > allowedInside) {
                                    overlaps.increment();
                                }
                                if (holdNanos > 0) {
                                    hold(acquired + holdNanos);
                                    if (inside.get() > allowedInside) {
                                        overlaps.increment();
                                    }
                                }
                                inside.decrementAndGet();
                                if (scenario.contended()) {
                                    lastReleaser.set(index);
                                    lastReleaseCall.set(System.nanoTime());
                                }
                                held.release();
                                pairLatency.recordValue(System.nanoTime() - start);
                                pairs.increment();
                            } catch (RuntimeException e) {
                                errors.increment();
                                if (errors.sum() == 1) {
                                    progress.note("error: " + e);
                                }
                            }
                        }
                    },
                    "bench-" + scenario + "-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        try {
            ready.await();
            CpuSample cpuBefore = CpuSample.now();
            long start = System.nanoTime();
            go.countDown();
            TimeUnit.NANOSECONDS.sleep(durationNanos);
            stop.set(true);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (Thread worker : workers) {
                worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                if (worker.isAlive()) {
                    throw new IllegalStateException(worker.getName() + " did not finish its last iteration in 60 s");
                }
            }
            long elapsed = System.nanoTime() - start;
            CpuSample cpuAfter = CpuSample.now();
            return new Measurement(
                    pairs.sum(),
                    elapsed,
                    pairLatency.getIntervalHistogram(),
                    handoffLatency.getIntervalHistogram(),
                    waitLatency.getIntervalHistogram(),
                    grants,
                    java.util.Arrays.stream(afterRelease).sum(),
                    java.util.Arrays.stream(toAnother).sum(),
                    overlaps.sum(),
                    errors.sum(),
                    cpuAfter.clientNanosSince(cpuBefore),
                    cpuAfter.serverNanosSince(cpuBefore));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop.set(true);
            throw new IllegalStateException("benchmark interrupted", e);
        }
    }
}
