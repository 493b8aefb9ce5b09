package dev.baton.internal;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockConfigurationException;
import dev.baton.LockTimeoutException;
import dev.baton.spi.LockNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Several exclusive locks taken together, all or nothing.
 *
 * <p>Why a canonical order: every client takes the members in ascending name order, so no client
 * waits for a lock while holding one that comes later in that order; a cycle of waiters (a
 * deadlock) would need one. Why member by member rather than one backend call: each member is an
 * ordinary lock (renewed, fenced, loss-reported, reentrant per thread), so a multi-lock works on
 * every backend and never holds half a set after it returns: a member it cannot take within the
 * time left makes it release the ones it took, in reverse order, before it reports the timeout.
 */
final class MultiLockHandle implements DistributedLock {
    private final List<DistributedLock> members;
    private final String name;
    private final String backendName;
    private final Ticker ticker;
    private final WaitThreads executor;

    MultiLockHandle(List<DistributedLock> members, String backendName, Ticker ticker, WaitThreads executor) {
        this.members = List.copyOf(members);
        this.backendName = backendName;
        this.ticker = ticker;
        this.executor = executor;
        List<String> names = new ArrayList<>(members.size());
        for (DistributedLock member : members) {
            names.add(member.name());
        }
        this.name = names.toString();
    }

    /** The validated names in canonical order; refuses none, a null, a repeat or an invalid name. */
    static List<String> canonicalNames(Collection<String> names, String backendName) {
        if (names == null || names.isEmpty()) {
            throw new LockConfigurationException(
                    "Baton multi-lock on " + backendName + ": give one or more lock names, got none");
        }
        List<String> valid = new ArrayList<>(names.size());
        Set<String> seen = new HashSet<>();
        for (String name : names) {
            String checked = LockNames.validate(name, backendName);
            if (!seen.add(checked)) {
                throw new LockConfigurationException("Baton multi-lock " + names + " on " + backendName + ": the name '"
                        + checked + "' is given twice; give each lock once");
            }
            valid.add(checked);
        }
        valid.sort(null);
        return valid;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Lease acquire() {
        List<Lease> taken = new ArrayList<>(members.size());
        try {
            for (DistributedLock member : members) {
                taken.add(member.acquire());
            }
        } catch (RuntimeException e) {
            throw releaseAfter(taken, e);
        }
        return lease(taken);
    }

    @Override
    public Lease acquire(Duration timeout) {
        long budget = timeoutNanos(timeout);
        long start = ticker.nanoTime();
        List<Lease> taken = new ArrayList<>(members.size());
        DistributedLock current = null;
        try {
            for (DistributedLock member : members) {
                current = member;
                long left = Math.max(0, budget - (ticker.nanoTime() - start));
                taken.add(member.acquire(Duration.ofNanos(left)));
            }
        } catch (LockTimeoutException e) {
            throw releaseAfter(
                    taken,
                    new LockTimeoutException(describe() + ": not acquired within " + timeout + " because another owner"
                            + " holds '" + current.name() + "'; released the " + taken.size()
                            + " lock(s) taken before it. Retry later or wait longer"));
        } catch (RuntimeException e) {
            throw releaseAfter(taken, e);
        }
        return lease(taken);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
        return MultiAcquisition.acquire(this, members, timeoutNanos(timeout), timeout);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync() {
        return MultiAcquisition.acquire(this, members, -1, null);
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync() {
        return MultiAcquisition.tryAcquire(this, members);
    }

    Ticker ticker() {
        return ticker;
    }

    MultiLease lease(List<Lease> taken) {
        return new MultiLease(name, backendName, taken, executor);
    }

    @Override
    public Optional<Lease> tryAcquire() {
        List<Lease> taken = new ArrayList<>(members.size());
        try {
            for (DistributedLock member : members) {
                Optional<Lease> lease = member.tryAcquire();
                if (lease.isEmpty()) {
                    closeAll(taken);
                    return Optional.empty();
                }
                taken.add(lease.get());
            }
        } catch (RuntimeException e) {
            throw releaseAfter(taken, e);
        }
        return Optional.of(lease(taken));
    }

    @Override
    public void lock() {
        int locked = 0;
        try {
            for (DistributedLock member : members) {
                member.lock();
                locked++;
            }
        } catch (RuntimeException e) {
            unlockFirst(locked, e);
            throw e;
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        int locked = 0;
        try {
            for (DistributedLock member : members) {
                member.lockInterruptibly();
                locked++;
            }
        } catch (InterruptedException | RuntimeException e) {
            unlockFirst(locked, e);
            throw e;
        }
    }

    @Override
    public boolean tryLock() {
        int locked = 0;
        try {
            for (DistributedLock member : members) {
                if (!member.tryLock()) {
                    unlockFirst(locked, null);
                    return false;
                }
                locked++;
            }
        } catch (RuntimeException e) {
            unlockFirst(locked, e);
            throw e;
        }
        return true;
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (unit == null) {
            throw new LockConfigurationException(describe() + ": the time unit must not be null");
        }
        long budget = Math.max(0, unit.toNanos(time));
        long start = ticker.nanoTime();
        int locked = 0;
        try {
            for (DistributedLock member : members) {
                long left = Math.max(0, budget - (ticker.nanoTime() - start));
                if (!member.tryLock(left, TimeUnit.NANOSECONDS)) {
                    unlockFirst(locked, null);
                    return false;
                }
                locked++;
            }
        } catch (InterruptedException | RuntimeException e) {
            unlockFirst(locked, e);
            throw e;
        }
        return true;
    }

    @Override
    public void unlock() {
        if (!isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException(describe() + ": the current thread ("
                    + Thread.currentThread().getName() + ") does not hold every lock of it, so it cannot unlock it");
        }
        unlockFirst(members.size(), null);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        for (DistributedLock member : members) {
            if (!member.isHeldByCurrentThread()) {
                return false;
            }
        }
        return true;
    }

    /** The times the current thread holds the whole set: the least hold count of its members. */
    @Override
    public int holdCount() {
        int count = Integer.MAX_VALUE;
        for (DistributedLock member : members) {
            count = Math.min(count, member.holdCount());
        }
        return count;
    }

    /** Unlocks the first {@code count} members in reverse order; failures join {@code cause}. */
    private void unlockFirst(int count, Exception cause) {
        RuntimeException failure = null;
        for (int i = count - 1; i >= 0; i--) {
            try {
                members.get(i).unlock();
            } catch (RuntimeException e) {
                if (cause != null) {
                    cause.addSuppressed(e);
                } else if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static RuntimeException releaseAfter(List<Lease> taken, RuntimeException cause) {
        try {
            closeAll(taken);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
        return cause;
    }

    /** Closes leases in reverse order; every one is closed even if one fails, the first failure thrown. */
    static void closeAll(List<Lease> leases) {
        RuntimeException failure = null;
        for (int i = leases.size() - 1; i >= 0; i--) {
            try {
                leases.get(i).close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private long timeoutNanos(Duration timeout) {
        return LockHandle.timeoutNanos(timeout, describe());
    }

    String describe() {
        return "Baton multi-lock " + name + " on " + backendName;
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name + ", multi, " + backendName + "]";
    }
}
