package dev.baton.cli;

import dev.baton.bench.BenchBackend.PlannedSubjects;
import dev.baton.bench.BenchRunner;
import dev.baton.bench.LockSubject;
import dev.baton.bench.Scenario;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Tells how far a bench run is: which row runs, how long the command has run and about how long it
 * has left. The time left is what the {@link BenchPlan} gives the steps not yet done, so it counts
 * down within a step and drops when a backend is skipped.
 *
 * <p>On a terminal the current step is one line, redrawn every second, below the lines that stay
 * (a backend skipped and why, an error); elsewhere (a CI log, a file) every step is a line of its own
 * and nothing is redrawn.
 */
final class BenchProgress implements BenchRunner.Progress, AutoCloseable {
    /** Set by the {@code baton} launcher, which can ask the shell; Java cannot tell. */
    static final String TERMINAL_PROPERTY = "baton.stderr.terminal";

    /** A longer line wraps on an 80-column terminal, and a carriage return no longer reaches its start. */
    private static final int STATUS_WIDTH = 79;

    private static final String CLEAR_LINE = "\r\033[K";

    private final BenchPlan plan;
    private final PrintWriter err;
    private final boolean terminal;
    private final LongSupplier nanoTime;
    private final long started;
    private final ScheduledExecutorService ticker;
    private final ReentrantLock lock = new ReentrantLock();

    // Guarded by lock. Planned time and runs not yet started, of the backends not yet begun and of
    // the current one (which may end early: skipped, failed), and the current step.
    private Duration laterBackends;
    private int runsTotal;
    private int runsStarted;
    private Duration backendLeft = Duration.ZERO;
    private int backendRunsLeft;
    private Duration currentCost = Duration.ZERO;
    private long currentStart;
    private String backend = "";
    private String step = "";
    private boolean closed;

    BenchProgress(BenchPlan plan, PrintWriter err, boolean terminal, LongSupplier nanoTime) {
        this.plan = plan;
        this.err = err;
        this.terminal = terminal;
        this.nanoTime = nanoTime;
        this.started = nanoTime.getAsLong();
        this.currentStart = started;
        this.runsTotal = plan.runs();
        this.laterBackends = plan.estimate().minus(BenchPlan.FIXED);
        if (terminal) {
            ticker = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, "baton-bench-progress");
                thread.setDaemon(true);
                return thread;
            });
            ticker.scheduleAtFixedRate(this::redraw, 1, 1, TimeUnit.SECONDS);
        } else {
            ticker = null;
        }
    }

    /** Whether the launcher found stderr to be a terminal. */
    static boolean stderrIsTerminal() {
        return Boolean.getBoolean(TERMINAL_PROPERTY);
    }

    /** A backend of the plan starts its server (or reaches its external one); {@code line} says which. */
    void backendStarting(String id, String line) {
        PlannedSubjects planned = plan.subjects(id);
        inLock(() -> {
            backend = id;
            Duration cost = BenchPlan.START_UP.plus(plan.afterStart(planned));
            laterBackends = laterBackends.minus(cost);
            backendLeft = cost;
            backendRunsLeft = runsOf(planned);
            begin(BenchPlan.START_UP, line);
        });
    }

    /** The backend offers {@code actual} subjects, which may not be what the plan counted. */
    void backendStarted(PlannedSubjects actual) {
        inLock(() -> {
            runsTotal += runsOf(actual) - backendRunsLeft;
            backendRunsLeft = runsOf(actual);
            backendLeft = plan.afterStart(actual);
        });
    }

    /** The backend ended, measured, skipped or failed: what it did not start leaves the plan. */
    void backendDone() {
        inLock(() -> {
            runsTotal -= backendRunsLeft;
            backendRunsLeft = 0;
            backendLeft = Duration.ZERO;
            currentCost = Duration.ZERO;
        });
    }

    @Override
    public void runStarting(LockSubject subject, Scenario scenario, int run) {
        int runs = plan.settings().runs();
        inLock(() -> {
            runsStarted++;
            backendRunsLeft--;
            begin(
                    plan.run(scenario),
                    backend + ": " + BenchRunner.label(subject, scenario) + " " + scenario
                            + (runs > 1 ? " run " + run + "/" + runs : ""));
        });
    }

    /** A recovery probe of {@code subject} starts. */
    void probeStarting(String subject) {
        inLock(() -> begin(BenchPlan.PROBE, backend + ": " + subject + ": recovery after SIGKILL of a holder"));
    }

    /** A line that stays: above the updating line on a terminal. */
    @Override
    public void note(String line) {
        inLock(() -> {
            err.print((terminal ? CLEAR_LINE : "") + "[" + BenchPlan.clock(elapsed()) + "] " + line
                    + System.lineSeparator());
            if (terminal && !closed) {
                err.print(status());
            }
            err.flush();
        });
    }

    /** How long the command has run. */
    Duration elapsed() {
        return Duration.ofNanos(nanoTime.getAsLong() - started);
    }

    /** The current step's line: rows (or runs) started, elapsed, time left, and what runs. */
    String status() {
        Duration inCurrent = Duration.ofNanos(nanoTime.getAsLong() - currentStart);
        Duration current = currentCost.minus(inCurrent);
        Duration left = max(laterBackends).plus(max(backendLeft)).plus(max(current));
        String line = String.format(
                java.util.Locale.ROOT,
                "[%s %d/%d, %s elapsed, about %s left] %s",
                plan.settings().runs() == 1 ? "row" : "run",
                runsStarted,
                runsTotal,
                BenchPlan.clock(elapsed()),
                BenchPlan.clock(left),
                step);
        return terminal && line.length() > STATUS_WIDTH ? line.substring(0, STATUS_WIDTH) : line;
    }

    private void begin(Duration cost, String what) {
        backendLeft = backendLeft.minus(cost);
        currentCost = cost;
        currentStart = nanoTime.getAsLong();
        step = what;
        if (terminal) {
            redraw();
        } else {
            err.println(status());
            err.flush();
        }
    }

    private void redraw() {
        inLock(() -> {
            if (!closed) {
                err.print(CLEAR_LINE + status());
                err.flush();
            }
        });
    }

    private int runsOf(PlannedSubjects subjects) {
        int rows = 0;
        for (Scenario scenario : plan.scenarios()) {
            rows += subjects.running(scenario);
        }
        return rows * plan.settings().runs();
    }

    private static Duration max(Duration duration) {
        return duration.isNegative() ? Duration.ZERO : duration;
    }

    private void inLock(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }

    /** Stops redrawing and leaves the terminal's line empty for what follows. */
    @Override
    public void close() {
        if (ticker != null) {
            ticker.shutdownNow();
            inLock(() -> {
                closed = true;
                err.print(CLEAR_LINE);
                err.flush();
            });
        }
    }
}
