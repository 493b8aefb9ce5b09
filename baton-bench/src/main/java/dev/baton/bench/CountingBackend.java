package dev.baton.bench;

import dev.baton.spi.ForwardingLockBackend;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * A backend that counts its renewal calls ({@code renew} and {@code renewAll}), for {@link
 * LeaseScaleBench}: each is one round trip to the server (one script call, one UPDATE statement,
 * one ZooKeeper request), so the count is the renewal round trips the client paid.
 */
final class CountingBackend extends ForwardingLockBackend {
    private final LongAdder renewalCalls = new LongAdder();

    CountingBackend(LockBackend backend) {
        super(backend);
    }

    long renewalCalls() {
        return renewalCalls.sum();
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        renewalCalls.increment();
        return super.renew(grant, leaseTime);
    }

    @Override
    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        renewalCalls.increment();
        return super.renewAll(grants, leaseTime);
    }
}
