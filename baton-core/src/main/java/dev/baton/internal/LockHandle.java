package dev.baton.internal;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockConfigurationException;
import dev.baton.LockException;
import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A cheap handle on one (name, kind); all state lives in the client. The kind travels to the
 * backend with each request; holds are kept per (name, mode), see {@link ClientCore#holdOf}.
 */
final class LockHandle implements DistributedLock {
    private final ClientCore client;
    private final String name;
    private final LockKind kind;
    private final LockMode mode;
    private final LockOptions options;
    private final int permits;

    LockHandle(ClientCore client, String name, LockKind kind, LockOptions options) {
        this(client, name, kind, options, 0);
    }

    /** A handle on a lock ({@code permits} 0) or on a semaphore's permits (kind PERMIT). */
    LockHandle(ClientCore client, String name, LockKind kind, LockOptions options, int permits) {
        this.client = client;
        this.name = name;
        this.kind = kind;
        this.mode = kind.mode();
        this.options = options;
        this.permits = permits;
    }

    @Override
    public String name() {
        return name;
    }

    LockKind kind() {
        return kind;
    }

    LockMode mode() {
        return mode;
    }

    LockOptions options() {
        return options;
    }

    /** The semaphore's permit count, or 0 for a lock. */
    int permits() {
        return permits;
    }

    LocalLockState.Key key() {
        return new LocalLockState.Key(name, mode, permits);
    }

    @Override
    public Lease acquire() {
        try {
            return client.acquire(this, -1, true).orElseThrow();
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    @Override
    public Lease acquire(Duration timeout) {
        long nanos = timeoutNanos(timeout);
        try {
            return client.acquireOrThrow(this, nanos, timeout);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    @Override
    public Optional<Lease> tryAcquire() {
        try {
            return client.acquire(this, 0, false).map(lease -> lease);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        return client.acquireAsync(this, timeoutNanos(timeout), timeout);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync() {
        return client.acquireAsync(this, -1, null);
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync() {
        CompletableFuture<Optional<Lease>> outcome = new CompletableFuture<>();
        CompletableFuture<Lease> attempt = client.acquireAsync(this, 0, Duration.ZERO);
        attempt.whenComplete((lease, failure) -> {
            if (failure == null) {
                outcome.complete(Optional.of(lease));
            } else if (failure instanceof LockTimeoutException) {
                outcome.complete(Optional.empty());
            } else {
                outcome.completeExceptionally(failure);
            }
        });
        outcome.whenComplete((lease, failure) -> {
            if (failure != null) {
                attempt.cancel(false);
            }
        });
        return outcome;
    }

    @Override
    public void lock() {
        try {
            client.acquire(this, -1, false);
        } catch (InterruptedException e) {
            throw new IllegalStateException("uninterruptible acquire was interrupted", e);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        client.acquire(this, -1, true);
    }

    @Override
    public boolean tryLock() {
        try {
            return client.acquire(this, 0, false).isPresent();
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (unit == null) {
            throw new LockConfigurationException(describe() + ": the time unit must not be null");
        }
        return client.acquire(this, Math.max(0, unit.toNanos(time)), true).isPresent();
    }

    @Override
    public void unlock() {
        HeldGrant hold = client.holdOf(name, mode, Thread.currentThread());
        if (hold == null) {
            throw new IllegalMonitorStateException(describe() + ": the current thread ("
                    + Thread.currentThread().getName() + ") does not hold this lock, so it cannot unlock it");
        }
        hold.releaseHold();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        HeldGrant hold = client.holdOf(name, mode, Thread.currentThread());
        return hold != null && hold.status() == HeldGrant.Status.HELD;
    }

    @Override
    public int holdCount() {
        HeldGrant hold = client.holdOf(name, mode, Thread.currentThread());
        return hold == null ? 0 : hold.holdCount();
    }

    private long timeoutNanos(Duration timeout) {
        return timeoutNanos(timeout, describe());
    }

    /** The timeout in nanoseconds (saturated), refusing null and negative with {@code describe}. */
    static long timeoutNanos(Duration timeout, String describe) {
        if (timeout == null) {
            throw new LockConfigurationException(
                    describe + ": the timeout must not be null; use acquire() to wait without limit");
        }
        if (timeout.isNegative()) {
            throw new LockConfigurationException(describe + ": the timeout must not be negative but was " + timeout
                    + "; use Duration.ZERO to try once");
        }
        try {
            return timeout.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private LockException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return new LockException(describe() + ": interrupted while waiting; nothing was acquired", e);
    }

    String describe() {
        return Describe.lock(name, mode, permits, client.backendName());
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name + (mode == LockMode.SHARED ? ", read" : "") + ", " + client.backendName()
                + "]";
    }
}
