package dev.baton;

import java.time.Instant;
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
     * Releases this hold. The backend is released when the last hold of the grant is closed; renewal
     * has stopped before this method returns. Idempotent. Never throws for a lease that was already
     * lost: it logs instead. If the backend cannot be reached the release is logged and the lease
     * expires on the backend after its lease time.
     */
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

    @Override
    void close();
}
