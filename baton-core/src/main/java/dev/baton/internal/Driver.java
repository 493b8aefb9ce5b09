package dev.baton.internal;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the steps of one {@link Acquisition}, one at a time and in the order given, whichever thread
 * asks. Why two kinds: an asynchronous acquisition runs its steps on the client's shared pool and
 * holds no thread between them; a blocking one runs them on the caller's own thread, which waits for
 * them anyway, so the blocking API pays no hand-over between threads and its calls to the backend
 * see the caller's interrupts, exactly as before there was an asynchronous API.
 */
abstract class Driver implements Executor {
    private static final Logger log = LoggerFactory.getLogger(Driver.class);

    /** Told of a step that failed, on that step's thread, before the next step runs. */
    private volatile Consumer<Throwable> onFailure = failure -> {};

    /** Whether steps run on the thread that waits for the outcome (the blocking API). */
    abstract boolean onCallerThread();

    /** Steps of an asynchronous acquisition, serialised on {@code pool}. */
    static Driver pooled(Executor pool) {
        return new Pooled(pool);
    }

    /** Steps of a blocking acquisition, run by the caller in {@link Caller#runUntil}. */
    static Caller caller() {
        return new Caller();
    }

    /**
     * Who ends the acquisition when one of its steps fails on what it did not foresee (an {@link
     * Error} from a backend's libraries, a defect): without it the caller would wait for an outcome
     * no step is left to give, forever when it gave no timeout.
     */
    void onFailure(Consumer<Throwable> handler) {
        onFailure = handler;
    }

    void run(Runnable step) {
        try {
            step.run();
        } catch (RuntimeException | Error e) {
            // A step ends its acquisition on any failure it can foresee; this is a defect.
            log.error("Baton: a step of an acquisition failed", e);
            try {
                onFailure.accept(e);
            } catch (RuntimeException | Error again) {
                e.addSuppressed(again);
                log.error("Baton: ending the acquisition after a failed step failed too", again);
            }
        }
    }

    private static final class Pooled extends Driver {
        private final Executor pool;
        private final ConcurrentLinkedQueue<Runnable> steps = new ConcurrentLinkedQueue<>();
        private final AtomicInteger pending = new AtomicInteger();

        Pooled(Executor pool) {
            this.pool = pool;
        }

        @Override
        boolean onCallerThread() {
            return false;
        }

        @Override
        public void execute(Runnable step) {
            steps.add(step);
            if (pending.getAndIncrement() == 0) {
                try {
                    pool.execute(this::drain);
                } catch (RejectedExecutionException e) {
                    // The client is closing: run here, the acquisition then sees it closed.
                    drain();
                }
            }
        }

        private void drain() {
            do {
                run(steps.poll());
            } while (pending.decrementAndGet() > 0);
        }
    }

    /** The blocking API's driver: the caller's thread takes the steps from a mailbox. */
    static final class Caller extends Driver {
        private final BlockingQueue<Runnable> mailbox = new LinkedBlockingQueue<>();

        @Override
        boolean onCallerThread() {
            return true;
        }

        @Override
        public void execute(Runnable step) {
            mailbox.add(step);
        }

        /**
         * Runs steps on this thread until {@code done} says so.
         *
         * @param done checked after each step
         * @param onInterrupt called when the thread is interrupted while it waits for a step; the
         *     thread then goes on running steps (the interrupt's own clean-up among them)
         */
        void runUntil(BooleanSupplier done, Runnable onInterrupt) {
            while (!done.getAsBoolean()) {
                Runnable step;
                try {
                    step = mailbox.poll(1, TimeUnit.DAYS);
                } catch (InterruptedException e) {
                    onInterrupt.run();
                    continue;
                }
                if (step != null) {
                    run(step);
                }
            }
        }
    }
}
