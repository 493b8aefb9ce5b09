package dev.baton.tck;

import dev.baton.testsupport.ForkedJava;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The child JVMs a test JVM keeps for the kit's counting loops across processes ({@link
 * ForkedLockClient}'s {@code serve} mode): started on first use, shared by every kit class of the
 * JVM, ended when the JVM exits (their standard input closes).
 *
 * <p>Why: a child that only counts under a lock is not killed or paused, so it need not be new. A
 * fresh child pays a JVM start, class loading, the driver's first connection and JIT, which cost
 * about as much CPU as the test JVM spent on the whole property; a worker pays that once per test
 * JVM and backend. The processes stay distinct: each run of a property takes {@link #COUNT}
 * different workers beside the test's JVM, and every run opens its own clients. A holder the kit
 * kills or pauses is still a child of its own ({@link ForkedJvm}, {@link LeadershipProperty}).
 */
final class ForkedWorkers {
    /** Workers per test JVM: the two processes a property runs beside the test's JVM. */
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
     * @param args the mode and its arguments, as on {@link ForkedLockClient}'s command line
     * @return one run per worker
     */
    static List<Run> run(int processes, String... args) {
        if (processes > COUNT) {
            throw new IllegalArgumentException(processes + " processes asked of " + COUNT + " workers");
        }
        List<Run> runs = new ArrayList<>();
        for (Worker worker : workers(processes)) {
            runs.add(worker.run(args));
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

    /** One run on one worker: its result line arrives on {@link #result}. */
    static final class Run {
        private final Worker worker;
        private final String id;
        private final BlockingQueue<String> result = new LinkedBlockingQueue<>();

        private Run(Worker worker, String id) {
            this.worker = worker;
            this.id = id;
        }

        /**
         * Waits for the run's end.
         *
         * @param timeout how long the run may take on an idle machine (lengthened by the CPU stall
         *     measured meanwhile, as every kit wait)
         * @return {@code DONE}, or what the worker saw: an overlap, or the failure it reports
         * @throws AssertionError if the run did not end in time or the worker died
         */
        String await(Duration timeout) throws InterruptedException {
            try {
                return Await.next(
                        result,
                        line -> true,
                        timeout,
                        () -> "worker " + worker.process.pid() + " ran "
                                + id + " for more than " + timeout + " (alive=" + worker.process.isAlive()
                                + "); its stderr:\n" + worker.process.stderrTail());
            } finally {
                worker.runs.remove(id);
            }
        }

        /** The worker's standard error, for a failure message. */
        String stderrTail() {
            return worker.process.stderrTail();
        }
    }

    private static final class Worker {
        private final Map<String, Run> runs = new ConcurrentHashMap<>();
        private final ForkedJava process;

        Worker() {
            process = ForkedJava.start(ForkedLockClient.class.getName(), List.of(), List.of("serve"), this::line);
        }

        Run run(String... args) {
            String id = "run-" + IDS.incrementAndGet();
            Run run = new Run(this, id);
            runs.put(id, run);
            process.send(id + ForkedLockClient.SEPARATOR + String.join(ForkedLockClient.SEPARATOR, args));
            return run;
        }

        /** A line {@code <id> <result>} of the worker: the result goes to its run. */
        private void line(String line) {
            int space = line.indexOf(' ');
            Run run = space < 0 ? null : runs.get(line.substring(0, space));
            if (run != null) {
                run.result.add(line.substring(space + 1));
            }
        }
    }
}
