package dev.baton.internal;

import dev.baton.Lease;
import dev.baton.LockLostException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The lease of a multi-lock: valid while every member is, lost when any member is lost. The
 * members stay held after one of them is lost, until {@link #close()}: the caller decides when to
 * leave its critical section, and closing releases what is still held.
 */
final class MultiLease implements Lease {
    private final String name;
    private final String backendName;
    private final List<Lease> members;
    private final AtomicBoolean closed = new AtomicBoolean();

    private final WaitThreads executor;

    MultiLease(String name, String backendName, List<Lease> members, WaitThreads executor) {
        this.executor = executor;
        this.name = name;
        this.backendName = backendName;
        this.members = List.copyOf(members);
    }

    @Override
    public String name() {
        return name;
    }

    /** The first member's token (names in canonical order); {@link #members()} has every token. */
    @Override
    public long fencingToken() {
        return members.get(0).fencingToken();
    }

    /** The earliest expiry of any member. */
    @Override
    public Instant expiresAt() {
        Instant earliest = Instant.MAX;
        for (Lease member : members) {
            Instant expiry = member.expiresAt();
            if (expiry.isBefore(earliest)) {
                earliest = expiry;
            }
        }
        return earliest;
    }

    @Override
    public boolean isValid() {
        if (closed.get()) {
            return false;
        }
        for (Lease member : members) {
            if (!member.isValid()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void checkValid() {
        if (closed.get()) {
            throw new LockLostException(describe() + ": this lease has been closed");
        }
        for (Lease member : members) {
            try {
                member.checkValid();
            } catch (LockLostException e) {
                throw lostBecause(e);
            }
        }
    }

    /** Tells {@code listener} once, at the first loss of any member. */
    @Override
    public void onLost(Consumer<LockLostException> listener) {
        AtomicBoolean told = new AtomicBoolean();
        for (Lease member : members) {
            member.onLost(lost -> {
                if (told.compareAndSet(false, true)) {
                    listener.accept(lostBecause(lost));
                }
            });
        }
    }

    /** Extends each member in canonical order; a member that is gone makes the whole set lost. */
    @Override
    public void extend(Duration extension) {
        if (closed.get()) {
            throw new IllegalStateException(describe() + ": cannot extend a lease that has been closed");
        }
        for (Lease member : members) {
            try {
                member.extend(extension);
            } catch (LockLostException e) {
                throw lostBecause(e);
            }
        }
    }

    @Override
    public List<Lease> members() {
        return members;
    }

    /** Releases every member still held, in reverse order; never throws for a member already lost. */
    @Override
    public CompletableFuture<Void> extendAsync(Duration extension) {
        return executor.run(() -> extend(extension));
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
        return executor.run(this::close);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            MultiLockHandle.closeAll(members);
        }
    }

    private LockLostException lostBecause(LockLostException member) {
        return new LockLostException(
                describe() + ": a member was lost, so the whole set is: " + member.getMessage(), member);
    }

    private String describe() {
        return "Baton multi-lock " + name + " on " + backendName;
    }

    @Override
    public String toString() {
        return "Lease[" + name + ", token=" + fencingToken() + ", valid=" + isValid() + "]";
    }
}
