package dev.baton.tck;

import dev.baton.Baton;
import dev.baton.LockOptions;
import dev.baton.spi.ForwardingLockBackend;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Passes every call to a real backend and records what the core asked for, so that the kit can
 * check properties the API alone does not show (no renewal after release, no release by another
 * owner), and can hold back chosen renewals as a server that stopped answering would.
 */
final class RecordingBackend extends ForwardingLockBackend {
    final AtomicInteger renewals = new AtomicInteger();
    final AtomicInteger renewalsAfterRelease = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    /** Names of the grants in renewal calls held back by {@link #stallRenewalsOf}. */
    final Set<String> stalledNames = ConcurrentHashMap.newKeySet();

    private static final Duration STALL_BOUND = Duration.ofSeconds(60);
    private final Set<String> released = ConcurrentHashMap.newKeySet();
    private final CountDownLatch stallEnded = new CountDownLatch(1);
    private volatile String stallName;

    RecordingBackend(LockBackend delegate) {
        super(delegate);
    }

    /**
     * A new backend of {@code uri}, made as {@link Baton#connect} makes it (the URI's clientName and
     * fair read into the options), that records.
     */
    static RecordingBackend of(String uri, LockOptions options) {
        return new RecordingBackend(Baton.backend(uri, options));
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        recordRenewal(grant);
        stallIfAsked(List.of(grant));
        return super.renew(grant, leaseTime);
    }

    @Override
    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        for (Grant grant : grants) {
            recordRenewal(grant);
        }
        stallIfAsked(grants);
        return super.renewAll(grants, leaseTime);
    }

    /**
     * From now on, a renewal call that includes a grant of {@code name} hangs (as a call to a server
     * that stopped answering does) until {@link #endStall()}, at most {@link #STALL_BOUND}. The names
     * of every grant in such a call are recorded in {@link #stalledNames}.
     */
    void stallRenewalsOf(String name) {
        stallName = name;
    }

    void endStall() {
        stallName = null;
        stallEnded.countDown();
    }

    private void stallIfAsked(List<Grant> grants) {
        String name = stallName;
        if (name == null || grants.stream().noneMatch(grant -> grant.name().equals(name))) {
            return;
        }
        grants.forEach(grant -> stalledNames.add(grant.name()));
        try {
            stallEnded.await(STALL_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void recordRenewal(Grant grant) {
        renewals.incrementAndGet();
        if (released.contains(grant.ownerId())) {
            renewalsAfterRelease.incrementAndGet();
        }
    }

    @Override
    public boolean release(Grant grant) {
        released.add(grant.ownerId());
        releases.incrementAndGet();
        return super.release(grant);
    }
}
