package dev.baton.tck;

import dev.baton.testsupport.ForkedJava;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The child JVMs a test JVM keeps for the kit's properties across processes ({@link
 * ForkedLockClient}): started on first use, shared by every kit class of the JVM, ended when the JVM
 * exits (their standard input closes).
 *
 * <p>Why: a fresh child pays a JVM start, class loading, the driver's first connection and JIT,
 * which cost about as much CPU as the test JVM spends on a property; a worker pays that once and then
 * serves run after run. The processes stay distinct: each counting run takes {@link #COUNT}
 * different workers beside the test's JVM, and every run opens its own clients. A holder the kit kills
 * or pauses is a worker taken for that run alone ({@link #take()}, {@link ForkedJvm}); a killed one
 * is gone, and the pool starts another when it next needs one, so each kill still costs one JVM.
 */
final class ForkedWorkers {
    /** Workers per test JVM: the two processes a counting property runs beside the test's JVM. */
    static final int COUNT = 2;

    private static final ReentrantLock LOCK = new ReentrantLock();
    private static final List<Worker> WORKERS = new ArrayList<>(); // guarded by LOCK
    private static final AtomicLong IDS = new AtomicLong();

    private ForkedWorkers() {}

    /**
     * Runs one counting mode of {@link ForkedLockClient} on each of {@code processes} different
     * workers.
     *
     * @param processes how many workers run it, at most {@link #COUNT}
     * @param args the mode and its arguments, as on {@link ForkedLockClient}'s input line
     * @return one run per worker
     */
    static List<Run> run(int processes, String... args) {
        if (processes > COUNT) {
            throw new IllegalArgumentException(processes + " processes asked of " + COUNT + " workers");
        }
        List<Run> runs = new ArrayList<>();
        for (Worker worker : workers(processes)) {
            runs.add(worker.run(line -> {}, args));
        }
        return runs;
    }

    private static List<Worker> workers(int processes) {
        LOCK.lock();
        try {
            WORKERS.removeIf(worker -> !worker.process.isAlive());
            while (WORKERS.size() < COUNT) {
                WORKERS.add(new Worker());
            }
            return List.copyOf(WORKERS.subList(0, processes));
        } finally {
            LOCK.unlock();
        }
    }

    /**
     * A worker for one run of the caller's alone (a holder to kill, stop or resign): an idle one of
     * the pool, which no counting run uses meanwhile, or a new one. Give it back with {@link
     * #giveBack} if its run ended and it still runs, or close it.
     */
    static Worker take() {
        LOCK.lock();
        try {
            for (Worker worker : WORKERS) {
                if (worker.process.isAlive() && worker.runs.isEmpty()) {
                    WORKERS.remove(worker);
                    return worker;
                }
            }
        } finally {
            LOCK.unlock();
        }
        return new Worker();
    }

    /** Takes back a worker of {@link #take()} whose runs have ended, or ends it if the pool is full. */
    static void giveBack(Worker worker) {
        LOCK.lock();
        try {
            WORKERS.removeIf(w -> !w.process.isAlive());
            if (worker.process.isAlive() && worker.runs.isEmpty() && WORKERS.size() < COUNT) {
                WORKERS.add(worker);
                return;
            }
        } finally {
            LOCK.unlock();
        }
        worker.process.close();
    }

    /** One run on one worker: its lines go to the run's sink, its first line to {@link #await}. */
    static final class Run {
        private final Worker worker;
        private final String id;
        private final Consumer<String> sink;
        private final BlockingQueue<String> result = new LinkedBlockingQueue<>();
        private final CountDownLatch ended = new CountDownLatch(1);

        private Run(Worker worker, String id, Consumer<String> sink) {
            this.worker = worker;
            this.id = id;
            this.sink = sink;
        }

        private void line(String text) {
            if (text.equals(ForkedLockClient.END)) {
                worker.runs.remove(id);
                ended.countDown();
                return;
            }
            result.add(text);
            sink.accept(text);
        }

        /**
         * Waits for the run's first line: a counting run's result.
         *
         * @param timeout how long the run may take on an idle machine (lengthened by the CPU stall
         *     measured meanwhile, as every kit wait)
         * @return {@code DONE}, or what the worker saw: an overlap, or the failure it reports
         * @throws AssertionError if the run did not end in time or the worker died
         */
        String await(Duration timeout) throws InterruptedException {
            return Await.next(
                    result,
                    line -> true,
                    timeout,
                    () -> "worker " + worker.process.pid() + " ran "
                            + id + " for more than " + timeout + " (alive=" + worker.process.isAlive()
                            + "); its stderr:\n" + worker.process.stderrTail());
        }

        /** Sends the run its message (a holder's signal to finish: release, ask, resign). */
        void tell(String message) {
            worker.process.send(String.join(ForkedLockClient.SEPARATOR, ForkedLockClient.TELL, id, message));
        }

        /** Whether the run printed its last line within {@code timeout}. */
        boolean awaitEnd(Duration timeout) throws InterruptedException {
            return ended.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** The worker's standard error, for a failure message. */
        String stderrTail() {
            return worker.process.stderrTail();
        }
    }

    /** A child JVM serving runs ({@link ForkedLockClient}). */
    static final class Worker {
        private final Map<String, Run> runs = new ConcurrentHashMap<>();
        final ForkedJava process;

        private Worker() {
            process = ForkedJava.start(ForkedLockClient.class.getName(), List.of(), List.of(), this::line);
        }

        /** Starts a run of {@code args} whose lines go to {@code sink}, on the reader thread. */
        Run run(Consumer<String> sink, String... args) {
            String id = "run-" + IDS.incrementAndGet();
            Run run = new Run(this, id, sink);
            runs.put(id, run);
            process.send(id + ForkedLockClient.SEPARATOR + String.join(ForkedLockClient.SEPARATOR, args));
            return run;
        }

        /** A line {@code <id> <text>} of the worker: the text goes to its run. */
        private void line(String line) {
            int space = line.indexOf(' ');
            Run run = space < 0 ? null : runs.get(line.substring(0, space));
            if (run != null) {
                run.line(line.substring(space + 1));
            }
        }
    }
}
