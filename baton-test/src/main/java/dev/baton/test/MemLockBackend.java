package dev.baton.test;

import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.Waiting;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A client's backend on a {@code mem://} namespace of this JVM: each call goes straight to the
 * namespace's table ({@link MemNamespace}), after the namespace's faults ({@link MemFaults}) had their
 * say. It starts no thread, and every call returns at once, except a renewal that a fault stalls
 * (bounded by the operation timeout). Every kind of request waits in the namespace's fair line
 * ({@link MemWaitQueue}).
 */
final class MemLockBackend implements LockBackend {
    /** A waiter that has not called for this many fallback periods is dropped from the line. */
    private static final int STALE_AFTER_POLLS = 3;

    private static final Duration STALE_AT_LEAST = Duration.ofSeconds(1);

    private final MemNamespace namespace;
    private final String name;
    private final Duration operationTimeout;
    private final long staleAfterNanos;
    private final Waiting waiting;
    private volatile boolean closed;

    /**
     * @param name the backend's name in messages: {@code mem (<namespace>)}, or, on a server, the
     *     client it serves
     * @param options the client's options: its operation timeout bounds a stalled renewal, and its
     *     {@code pollMaxDelay}, the core's fallback period, says when a silent waiter is dropped
     */
    MemLockBackend(MemNamespace namespace, String name, LockOptions options) {
        this.namespace = namespace;
        this.name = name;
        this.operationTimeout = options.operationTimeout();
        Duration stale = options.pollMaxDelay().multipliedBy(STALE_AFTER_POLLS);
        this.staleAfterNanos = (stale.compareTo(STALE_AT_LEAST) > 0 ? stale : STALE_AT_LEAST).toNanos();
        this.waiting = Waiting.queue(new MemWaitQueue(this, namespace));
    }

    @Override
    public String name() {
        return name;
    }

    long staleAfterNanos() {
        return staleAfterNanos;
    }

    /** Fails the call if this backend is closed or the namespace is cut off ({@link MemFaults#unreachable}). */
    void checkReachable(String lock) {
        if (closed) {
            throw new LockUnavailableException((lock == null ? name : "Baton lock '" + lock + "' on " + name)
                    + ": the backend is closed; connect a new client");
        }
        namespace.faults.checkReachable(lock, name);
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        checkReachable(request.name());
        return namespace.tryAcquire(request, name);
    }

    @Override
    public Waiting waiting(LockKind kind) {
        return waiting;
    }

    @Override
    public boolean supportsPermits() {
        return true;
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        checkReachable(grant.name());
        namespace.faults.beforeRenewal(grant.name(), name, operationTimeout);
        return namespace.renew(grant, leaseTime);
    }

    @Override
    public boolean release(Grant grant) {
        checkReachable(grant.name());
        return namespace.release(grant);
    }

    @Override
    public void abandon(LockRequest request) {
        checkReachable(request.name());
        namespace.abandon(request);
    }

    @Override
    public Optional<LockInfo> inspect(String lock) {
        checkReachable(lock);
        return namespace.inspect(lock);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        checkReachable(null);
        return namespace.list(prefix);
    }

    @Override
    public String listingMethod() {
        return "reads the namespace's table in the memory of the JVM that holds it";
    }

    @Override
    public List<LockInfo> forceRelease(String lock, String ownerId) {
        checkReachable(lock);
        return namespace.breakHolds(
                lock, hold -> ownerId == null || hold.request.ownerId().equals(ownerId));
    }

    @Override
    public void close() {
        closed = true;
    }
}
