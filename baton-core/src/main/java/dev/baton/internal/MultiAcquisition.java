package dev.baton.internal;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One asynchronous acquisition of a multi-lock: the members one after the other in the canonical
 * order, each asynchronously, as {@link MultiLockHandle} takes them with blocking calls. A member that
 * cannot be taken in the time left, or a cancel of the whole, releases the members taken so far (in
 * reverse order) before the future completes; a cancel also cancels the member being waited for.
 */
final class MultiAcquisition {
    private final MultiLockHandle multi;
    private final List<DistributedLock> members;
    private final boolean tryOnly;
    private final long budgetNanos;
    private final Duration timeout;
    private final long start;
    private final CompletableFuture<Lease> result = new CompletableFuture<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Lease> taken = new ArrayList<>();
    private CompletableFuture<?> current;

    /**
     * @param budgetNanos the time for all members; negative for no limit
     * @param tryOnly single attempts only ({@link DistributedLock#tryAcquireAsync()})
     */
    private MultiAcquisition(
            MultiLockHandle multi, List<DistributedLock> members, boolean tryOnly, long budgetNanos, Duration timeout) {
        this.multi = multi;
        this.members = members;
        this.tryOnly = tryOnly;
        this.budgetNanos = budgetNanos;
        this.timeout = timeout;
        this.start = multi.ticker().nanoTime();
    }

    static CompletableFuture<Lease> acquire(
            MultiLockHandle multi, List<DistributedLock> members, long budgetNanos, Duration timeout) {
        MultiAcquisition acquisition = new MultiAcquisition(multi, members, false, budgetNanos, timeout);
        acquisition.begin();
        return acquisition.result;
    }

    static CompletableFuture<Optional<Lease>> tryAcquire(MultiLockHandle multi, List<DistributedLock> members) {
        MultiAcquisition acquisition = new MultiAcquisition(multi, members, true, 0, Duration.ZERO);
        acquisition.begin();
        CompletableFuture<Optional<Lease>> outcome = new CompletableFuture<>();
        acquisition.result.whenComplete((lease, failure) -> {
            if (failure == null) {
                outcome.complete(Optional.of(lease));
            } else if (unwrap(failure) instanceof LockTimeoutException) {
                outcome.complete(Optional.empty());
            } else {
                outcome.completeExceptionally(unwrap(failure));
            }
        });
        outcome.whenComplete((lease, failure) -> {
            if (failure != null) {
                acquisition.result.cancel(false);
            }
        });
        return outcome;
    }

    private void begin() {
        result.whenComplete((lease, failure) -> {
            if (failure != null) {
                CompletableFuture<?> waiting;
                lock.lock();
                try {
                    waiting = current;
                } finally {
                    lock.unlock();
                }
                if (waiting != null) {
                    waiting.cancel(false);
                }
            }
        });
        next(0);
    }

    private void next(int index) {
        if (index == members.size()) {
            MultiLease lease = multi.lease(List.copyOf(taken));
            if (!result.complete(lease)) {
                lease.close(); // cancelled while the last member was on its way
            }
            return;
        }
        DistributedLock member = members.get(index);
        CompletableFuture<Lease> step;
        if (tryOnly) {
            step = member.tryAcquireAsync()
                    .thenApply(lease -> lease.orElseThrow(() -> new LockTimeoutException(
                            multi.describe() + ": '" + member.name() + "' is held by another owner")));
        } else if (budgetNanos < 0) {
            step = member.acquireAsync();
        } else {
            long left = Math.max(0, budgetNanos - (multi.ticker().nanoTime() - start));
            step = member.acquireAsync(Duration.ofNanos(left));
        }
        lock.lock();
        try {
            current = step;
        } finally {
            lock.unlock();
        }
        if (result.isDone()) {
            step.cancel(false);
        }
        step.whenComplete((lease, failure) -> {
            if (failure != null) {
                giveUp(member, unwrap(failure));
                return;
            }
            taken.add(lease);
            if (result.isDone()) {
                giveUp(member, new CancellationException());
                return;
            }
            next(index + 1);
        });
    }

    private void giveUp(DistributedLock member, Throwable failure) {
        Throwable cause = failure;
        if (failure instanceof LockTimeoutException && !tryOnly) {
            cause = new LockTimeoutException(multi.describe() + ": not acquired within " + timeout
                    + " because another owner holds '" + member.name() + "'; released the " + taken.size()
                    + " lock(s) taken before it. Retry later or wait longer");
        }
        try {
            MultiLockHandle.closeAll(taken);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
        result.completeExceptionally(cause);
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
