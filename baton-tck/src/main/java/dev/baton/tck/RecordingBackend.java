package dev.baton.tck;

import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockInfo;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Passes every call to a real backend and records what the core asked for, so that the kit can
 * check properties the API alone does not show (no renewal after release, no release by another
 * owner).
 */
final class RecordingBackend implements LockBackend {
    private final LockBackend delegate;
    final AtomicInteger renewals = new AtomicInteger();
    final AtomicInteger renewalsAfterRelease = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    private final Set<String> released = ConcurrentHashMap.newKeySet();

    RecordingBackend(LockBackend delegate) {
        this.delegate = delegate;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        return delegate.tryAcquire(request);
    }

    @Override
    public boolean queuesWaiters() {
        return delegate.queuesWaiters();
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        return delegate.acquire(request, timeoutNanos);
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        renewals.incrementAndGet();
        if (released.contains(grant.ownerId())) {
            renewalsAfterRelease.incrementAndGet();
        }
        return delegate.renew(grant, leaseTime);
    }

    @Override
    public boolean release(Grant grant) {
        released.add(grant.ownerId());
        releases.incrementAndGet();
        return delegate.release(grant);
    }

    @Override
    public void abandon(LockRequest request) {
        delegate.abandon(request);
    }

    @Override
    public ReleaseNotifications releaseNotifications() {
        return delegate.releaseNotifications();
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return delegate.inspect(name);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
