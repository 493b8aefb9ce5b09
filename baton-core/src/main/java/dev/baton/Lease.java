package dev.baton;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A held lock: proof of ownership with a fencing token. Ownership belongs to the lease, not to a
 * thread: {@link #close()} may be called from any thread, an executor or a virtual thread.
 *
 * <p>While auto-renewal is on, the client renews the lease at a third of its lease time until it is
 * closed. If renewal fails for longer than the lease time, or the backend reports that another
 * owner has the lock, the lease is lost: {@link #isValid()} turns {@code false}, {@link
 * #checkValid()} throws, and every {@link #onLost} listener is called once.
 *
 * <p>Validity is judged conservatively with this JVM's monotonic clock, counted from the moment the
 * acquire or renew request was <em>sent</em>, so it never outlives the backend's own expiry, whatever
 * the clocks of the two machines say. A process pause can still outlast a lease; hand {@link
 * #fencingToken()} to the resource you protect so that it can reject writes from an older holder.
 */
public interface Lease extends AutoCloseable {

    /**
     * The lock's name.
     *
     * @return the name of the lock this lease holds
     */
    String name();

    /**
     * A number that strictly increases every time the lock is granted to a new owner (reentrant
     * acquisitions share their grant's token). Give it to the protected resource with every write.
     *
     * @return this grant's fencing token; positive, and fixed for the lifetime of the lease
     */
    long fencingToken();

    /**
     * When the backend will consider the lease expired unless it is renewed, as reported by the
     * backend's own clock at the last acquire or renew. Informational: use {@link #isValid()} to
     * decide.
     *
     * @return the backend's expiry time at the last successful acquire or renew
     */
    Instant expiresAt();

    /**
     * Whether the lease still holds the lock. Never blocks and does no I/O.
     *
     * @return {@code true} while the lease is held, not released, and not lost
     */
    boolean isValid();

    /**
     * Returns normally while {@link #isValid()}; otherwise throws.
     *
     * @throws LockLostException if the lease was lost or has been released
     */
    void checkValid();

    /**
     * Registers a listener called once, on a Baton thread, when the lease is lost (not when it is
     * released). Called at once if the lease is already lost. Listeners must not block.
     *
     * @param listener receives the exception that says why the lease was lost; an exception it
     *     throws is logged and does not stop other listeners
     */
    void onLost(Consumer<LockLostException> listener);

    /**
     * Extends the lease now: asks the backend to keep it for {@code extension} from when the backend
     * handles the call. The extension replaces what was left, it is not added to it: a lease with
     * 10 s left extended by 30 s expires 30 s after the call, one extended by 5 s expires sooner.
     * Validity is counted from the moment the request was sent, as for renewals. Meant for leases
     * taken with {@link LockOptions#autoRenew()} off (a job that needs longer than it thought); the
     * lease then expires {@code extension} after this call unless extended again.
     *
     * <p>On an auto-renewed lease the extension must be at least the lock's lease time: the lease is
     * renewed now for {@code extension}, and the following automatic renewals go on with the lock's
     * lease time as before (a shorter extension would run out before the next automatic renewal).
     *
     * <p>A multi-lock's lease extends each member in turn; if one is gone the whole set is lost. Blocks
     * for one backend call, bounded by the operation timeout (and by a renewal of this lease already
     * in flight, which it waits for); never while holding a lock of the client.
     *
     * @param extension how long the backend keeps the lease from now; positive, and within what the
     *     backend can serve (Azure Blob renews a lease only for the duration it was taken with; etcd
     *     at most the whole seconds of the lease it was taken with)
     * @throws LockConfigurationException if {@code extension} is null, zero or negative, on an
     *     auto-renewed lease shorter than the lock's lease time, or longer than the backend can keep a
     *     lease; nothing is sent to the backend then
     * @throws LockLostException if the lease was already lost, its validity ran out, or the backend no
     *     longer has it ({@link #onLost} listeners hear of a loss found here, once)
     * @throws IllegalStateException if this lease has been closed
     * @throws LockUnavailableException if the backend could not be reached: the lease is then as
     *     valid as before, until its previous expiry
     */
    void extend(Duration extension);

    /**
     * {@link #extend(Duration)} without blocking the caller: the backend call runs on a Baton thread.
     *
     * @param extension how long the backend keeps the lease from now
     * @return a future completed once extended, or exceptionally with what {@link #extend} throws
     */
    CompletableFuture<Void> extendAsync(Duration extension);

    /**
     * {@link #close()} without blocking the caller: the release runs on a Baton thread, and the future
     * completes once the backend has answered (or the failure was logged). Renewal has stopped by
     * then, as for {@link #close()}. Idempotent.
     *
     * @return a future completed when the lease is released; never exceptionally
     */
    CompletableFuture<Void> releaseAsync();

    /**
     * The leases this one is made of: for a lock's or a permit's lease, just itself; for a {@link
     * LockClient#multiLock(String...) multi-lock}'s, the lease of each name in the canonical order
     * the names were taken in (ascending {@link String#compareTo}), each with its own fencing token.
     *
     * @return an unmodifiable list of at least one lease
     */
    default java.util.List<Lease> members() {
        return java.util.List.of(this);
    }

    /**
     * Releases this hold. The backend is released when the last hold of the grant is closed; renewal
     * has stopped before this method returns. Idempotent. Never throws for a lease that was already
     * lost: it logs instead. If the backend cannot be reached the release is logged and the lease
     * expires on the backend after its lease time.
     */
    @Override
    void close();
}
