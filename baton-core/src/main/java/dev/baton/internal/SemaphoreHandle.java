package dev.baton.internal;

import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A semaphore: its permits go through the same acquisition path as locks (local gate, backend queue
 * or polling with notifications, renewal, loss detection), as grants of kind {@code PERMIT} that are
 * neither reentrant nor bound to the acquiring thread.
 */
final class SemaphoreHandle implements DistributedSemaphore {
    private final LockHandle permits;

    SemaphoreHandle(LockHandle permits) {
        this.permits = permits;
    }

    @Override
    public String name() {
        return permits.name();
    }

    @Override
    public int permits() {
        return permits.permits();
    }

    @Override
    public Lease acquire() {
        return permits.acquire();
    }

    @Override
    public Lease acquire(Duration timeout) {
        return permits.acquire(timeout);
    }

    @Override
    public Optional<Lease> tryAcquire() {
        return permits.tryAcquire();
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        return permits.acquireAsync(timeout);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync() {
        return permits.acquireAsync();
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync() {
        return permits.tryAcquireAsync();
    }

    @Override
    public String toString() {
        return "DistributedSemaphore[" + name() + ", " + permits() + " permits]";
    }
}
