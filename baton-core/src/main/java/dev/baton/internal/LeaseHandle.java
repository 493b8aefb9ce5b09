package dev.baton.internal;

import dev.baton.Lease;
import dev.baton.LockLostException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** One hold of a {@link HeldGrant}, handed to the caller; closing it removes exactly that hold. */
final class LeaseHandle implements Lease {
    /** A field, not an {@code AtomicBoolean}: a client may hold tens of thousands of leases. */
    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(LeaseHandle.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final HeldGrant held;
    private volatile boolean closed;

    LeaseHandle(HeldGrant held) {
        this.held = held;
    }

    @Override
    public String name() {
        return held.local.name;
    }

    @Override
    public long fencingToken() {
        return held.grant().fencingToken();
    }

    @Override
    public Instant expiresAt() {
        return held.grant().expiresAt();
    }

    @Override
    public boolean isValid() {
        return !closed && held.isValid();
    }

    @Override
    public void checkValid() {
        if (closed) {
            throw new LockLostException(held.describe() + ": this lease has been closed");
        }
        held.checkValid();
    }

    @Override
    public void onLost(Consumer<LockLostException> listener) {
        held.onLost(listener);
    }

    @Override
    public void extend(Duration extension) {
        if (closed) {
            throw new IllegalStateException(held.describe() + ": cannot extend a lease that has been closed");
        }
        LeaseExtension.extend(held, extension);
    }

    @Override
    public CompletableFuture<Void> extendAsync(Duration extension) {
        return held.client.waits.run(() -> extend(extension));
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
        return held.client.waits.run(this::close);
    }

    @Override
    public void close() {
        if (CLOSED.compareAndSet(this, false, true)) {
            held.releaseHold();
        } else {
            held.awaitReleased(); // closed by another thread: return when that release is done
        }
    }

    @Override
    public String toString() {
        return "Lease[" + name() + ", token=" + fencingToken() + ", expiresAt=" + expiresAt() + ", valid=" + isValid()
                + "]";
    }
}
