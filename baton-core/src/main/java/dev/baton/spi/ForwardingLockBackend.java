package dev.baton.spi;

import dev.baton.LockInfo;
import dev.baton.LockKind;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A backend that passes every call to another one: a base for wrappers that observe or change a few
 * calls (counting renewals, recording what the core asked for) and forward the rest unchanged. A
 * stable part of the SPI: a method added to {@link LockBackend} is added here too, forwarding.
 */
public abstract class ForwardingLockBackend implements LockBackend {
    private final LockBackend delegate;

    /**
     * A backend that forwards to {@code delegate}.
     *
     * @param delegate the backend every call not overridden goes to; closing this backend closes it
     */
    protected ForwardingLockBackend(LockBackend delegate) {
        this.delegate = delegate;
    }

    /**
     * The backend every call goes to.
     *
     * @return the delegate given to the constructor
     */
    protected final LockBackend delegate() {
        return delegate;
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
    public Waiting waiting(LockKind kind) {
        return delegate.waiting(kind);
    }

    @Override
    public boolean supportsPermits() {
        return delegate.supportsPermits();
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        return delegate.renew(grant, leaseTime);
    }

    @Override
    public void checkExtension(String lock, Duration leaseTime, Duration extension) {
        delegate.checkExtension(lock, leaseTime, extension);
    }

    @Override
    public int renewalBatchSize() {
        return delegate.renewalBatchSize();
    }

    @Override
    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        return delegate.renewAll(grants, leaseTime);
    }

    @Override
    public boolean release(Grant grant) {
        return delegate.release(grant);
    }

    @Override
    public void abandon(LockRequest request) {
        delegate.abandon(request);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return delegate.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return delegate.list(prefix);
    }

    @Override
    public String listingMethod() {
        return delegate.listingMethod();
    }

    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        return delegate.forceRelease(name, ownerId);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
