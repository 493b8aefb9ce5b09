package dev.baton.zookeeper;

import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Waits in a backend's line as the core does, for tests that drive the backend directly: enters it
 * ({@link WaitQueue#enter}), attempts whenever the backend wakes the entry and at least once per the
 * core's default {@code pollMaxDelay} (its fallback attempt), and leaves the line when the time runs
 * out or an attempt fails.
 */
final class InLine {
    private static final long FALLBACK_NANOS =
            LockOptions.defaults().pollMaxDelay().toNanos();

    private InLine() {}

    /**
     * The grant, or empty if {@code timeoutNanos} ran out first (the entry then left the line).
     *
     * @throws dev.baton.LockUnavailableException as the backend's attempt threw it, after leaving
     */
    static Optional<Grant> acquire(LockBackend backend, LockRequest request, long timeoutNanos)
            throws InterruptedException {
        Semaphore woken = new Semaphore(0);
        WaitQueue.Entry entry = backend.waiting(request.kind()).queue().enter(request, woken::release);
        if (entry.grantedOnEntry().isPresent()) {
            return entry.grantedOnEntry();
        }
        long deadline = System.nanoTime() + timeoutNanos;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    entry.leave();
                    return Optional.empty();
                }
                // Woken, or the fallback attempt is due: either way the entry attempts.
                woken.tryAcquire(Math.min(left, FALLBACK_NANOS), TimeUnit.NANOSECONDS);
                woken.drainPermits();
                Optional<Grant> grant = entry.attempt();
                if (grant.isPresent()) {
                    return grant;
                }
            }
        } catch (RuntimeException | InterruptedException e) {
            entry.leave();
            throw e;
        }
    }
}
