package dev.baton.internal;

import dev.baton.Lease;
import dev.baton.LockException;
import dev.baton.LockKind;
import dev.baton.LockTimeoutException;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.Waiting;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's acquisitions in progress, blocking and asynchronous, both run as {@link Acquisition}s:
 * the blocking caller drives its own on its thread, an asynchronous one runs on the client's {@link
 * WaitThreads}. Reentrancy belongs to the blocking API only: a thread that holds a lock and asks
 * again gets its hold back without an acquisition. An asynchronous acquisition is never reentrant,
 * since no thread owns it: it is a lease of its own, and waits behind any holder, the same client's
 * included.
 */
final class Acquisitions {
    private static final Logger log = LoggerFactory.getLogger(Acquisitions.class);

    private final ClientCore client;
    private final Set<Acquisition> active = ConcurrentHashMap.newKeySet();
    private final Map<LockKind, Waiting> waitingByKind = new ConcurrentHashMap<>();

    Acquisitions(ClientCore client) {
        this.client = client;
    }

    /**
     * Acquires for the current thread (the blocking API). A call that is not reentrant is reported to
     * the listeners: its wait and its outcome ({@link LockEvents.Attempt}).
     *
     * @param timeoutNanos 0 to try once without waiting, negative to wait without limit
     * @param interruptible whether an interrupt ends the wait (with {@link InterruptedException})
     * @param timeout the caller's timeout: when given, running out of time throws {@link
     *     LockTimeoutException} saying why instead of returning empty
     * @return the lease, or empty if the time ran out
     */
    Optional<LeaseHandle> acquire(LockHandle lock, long timeoutNanos, boolean interruptible, Duration timeout)
            throws InterruptedException {
        client.checkOpen();
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException();
        }
        long start = client.ticker.nanoTime();
        Thread thread = Thread.currentThread();
        boolean threadBound = lock.permits() == 0;
        if (threadBound) {
            client.checkReentry(lock, thread);
            HeldGrant reentrant = client.holdOf(lock.name(), lock.mode(), thread);
            if (reentrant != null && reentrant.addHold()) {
                return Optional.of(new LeaseHandle(reentrant));
            }
        }
        LocalLockState local = client.retain(lock.key());
        Driver.Caller driver = Driver.caller();
        Acquisition acquisition = new Acquisition(
                client,
                lock,
                local,
                driver,
                start,
                timeoutNanos,
                thread,
                threadBound,
                interruptible,
                client.events.attempt(lock.name(), lock.kind(), client.ticker));
        HeldGrant hold = null;
        try {
            begin(acquisition);
            driver.runUntil(acquisition.result::isDone, acquisition::interrupted);
            if (acquisition.interruptSwallowed()) {
                thread.interrupt();
            }
            hold = outcome(acquisition);
            if (hold == null && timeout != null) {
                throw new LockTimeoutException(client.timeoutMessage(lock, timeout, acquisition.timeoutCause()));
            }
            return Optional.ofNullable(hold).map(LeaseHandle::new);
        } finally {
            if (hold == null) {
                client.unretain(local);
            }
        }
    }

    /**
     * Acquires without holding a thread while it waits (the asynchronous API). The future completes
     * with the lease, with {@link LockTimeoutException} when the time runs out, or with the failure;
     * cancelling it (or completing it from outside, as {@code orTimeout} does) stops the acquisition,
     * which then leaves nothing behind and releases a grant that arrives after all.
     *
     * @param timeout the caller's timeout, for the timeout's message; null for none
     */
    CompletableFuture<Lease> acquireAsync(LockHandle lock, long timeoutNanos, Duration timeout) {
        CompletableFuture<Lease> future = new CompletableFuture<>();
        if (client.isClosed()) {
            future.completeExceptionally(client.closedException());
            return future;
        }
        LocalLockState local = client.retain(lock.key());
        Acquisition acquisition = new Acquisition(
                client,
                lock,
                local,
                Driver.pooled(client.waits.calls()),
                client.ticker.nanoTime(),
                timeoutNanos,
                Thread.currentThread(),
                false,
                false,
                client.events.attempt(lock.name(), lock.kind(), client.ticker));
        acquisition.result.whenComplete((hold, failure) -> {
            if (hold != null) {
                LeaseHandle lease = new LeaseHandle(hold);
                if (!future.complete(lease)) {
                    lease.close(); // the caller gave up while the grant was on its way
                }
                return;
            }
            client.unretain(local);
            if (failure == null) {
                future.completeExceptionally(new LockTimeoutException(
                        timeoutNanos == 0
                                ? lock.describe() + ": held by another owner; retry later"
                                : client.timeoutMessage(lock, timeout, acquisition.timeoutCause())));
            } else if (!(failure instanceof CancellationException)) {
                future.completeExceptionally(failure);
            }
        });
        future.whenComplete((lease, failure) -> {
            if (failure != null && !acquisition.result.isDone()) {
                acquisition.stop(Acquisition.Stop.CANCELLED);
            }
        });
        begin(acquisition);
        return future;
    }

    private void begin(Acquisition acquisition) {
        active.add(acquisition);
        acquisition.start();
        if (client.isClosed()) {
            acquisition.stop(Acquisition.Stop.CLOSED); // close() may have missed it
        }
    }

    /** The acquisition ended, with or without a grant. */
    void ended(Acquisition acquisition) {
        active.remove(acquisition);
    }

    /** Stops every acquisition in progress; each then fails as closed. */
    void closeAll() {
        for (Acquisition acquisition : List.copyOf(active)) {
            acquisition.stop(Acquisition.Stop.CLOSED);
        }
    }

    /** How the backend waits for requests of {@code kind}, asked once per kind. */
    Waiting waiting(LockKind kind) {
        return waitingByKind.computeIfAbsent(kind, client.backend::waiting);
    }

    /** The request an acquisition sends, with a fresh owner id. */
    LockRequest request(LockHandle lock, Thread caller) {
        return LockRequest.builder(
                        lock.name(),
                        OwnerIds.next(),
                        lock.kind(),
                        lock.options().leaseTime())
                .permits(Math.max(1, lock.permits()))
                .holder(HolderDescriptions.of(lock.options().clientName(), caller))
                .build();
    }

    /**
     * A grant answered too late to hand out ({@link Acquisition}): released, best effort. Logged at
     * debug the first time in a wait ({@code again} false), as a warning with the fix after.
     */
    void releaseLate(LockHandle lock, Grant grant, long elapsedNanos, long validityNanos, boolean again) {
        if (!again) {
            // Usually a cold client's first call; the next attempt costs the caller nothing to act on.
            log.debug(
                    "{}: the grant (token {}) was answered {} ms after its request, with less than half of its {} ms"
                            + " validity left; released and asked for again",
                    lock.describe(),
                    grant.fencingToken(),
                    elapsedNanos / 1_000_000,
                    validityNanos / 1_000_000);
        } else {
            log.warn(
                    "{}: a grant was answered {} ms after its request, again with less than half of its {} ms"
                            + " validity left, so it was released and not handed out; the backend or this client is"
                            + " slow for a lease time of {}: check the server's load and the network, or raise"
                            + " LockOptions.leaseTime",
                    lock.describe(),
                    elapsedNanos / 1_000_000,
                    validityNanos / 1_000_000,
                    lock.options().leaseTime());
        }
        releaseUnwanted(lock, grant);
    }

    /** Releases a grant nobody takes (late, or its acquisition was cancelled); failures only logged. */
    void releaseUnwanted(LockHandle lock, Grant grant) {
        try {
            client.backend.release(grant);
        } catch (RuntimeException e) {
            log.warn(
                    "{}: releasing a grant nobody took failed; it expires with its lease: {}",
                    lock.describe(),
                    e.toString());
        }
    }

    /** The blocking caller's outcome: the hold, null on timeout, or the failure rethrown. */
    private static HeldGrant outcome(Acquisition acquisition) throws InterruptedException {
        try {
            return acquisition.result.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof InterruptedException interrupted) {
                throw interrupted;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new LockException("Baton: acquisition failed: " + cause, cause);
        } catch (CancellationException e) {
            throw new LockUnavailableException("Baton: the acquisition was cancelled", e);
        }
    }
}
