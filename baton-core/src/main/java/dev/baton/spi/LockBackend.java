package dev.baton.spi;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The wire protocol of one backend. The core does everything else (reentrancy, renewal scheduling,
 * deadlines, waiting, clean-up, validation), so a backend only says how to take, renew and release
 * one grant.
 *
 * <p>Every method is bounded by the operation timeout the backend was created with and reports a
 * backend that cannot be reached, refuses, or does not answer in time with {@link
 * LockUnavailableException}. Methods are called concurrently from many threads.
 */
public interface LockBackend extends AutoCloseable {

    /**
     * A short description for messages.
     *
     * @return for example {@code jdbc-table (PostgreSQL)}; constant for the backend's lifetime
     */
    String name();

    /**
     * Takes the lock if it can be taken now (free, expired, or shared-compatible), without waiting
     * for another holder.
     *
     * @param request the lock name, owner id, mode and lease time wanted
     * @return the grant, or empty if another owner holds the lock
     * @throws LockUnavailableException if the backend could not be asked
     */
    Optional<Grant> tryAcquire(LockRequest request);

    /**
     * How a request of {@code kind} waits while another owner holds the lock: polled with backoff
     * (woken by release notifications where the backend has them), in a line of waiters the backend
     * keeps, or in one blocking call on a pinned connection ({@link Waiting}). The core drives every
     * wait, blocking and asynchronous alike, through this one form; single attempts ({@code
     * tryAcquire()}, a zero timeout) always go through {@link #tryAcquire}.
     *
     * @param kind the kind of the waiting request
     * @return how it waits; the default polls without notifications
     */
    default Waiting waiting(LockKind kind) {
        return Waiting.polling();
    }

    /**
     * Whether this backend has a form for semaphore permits ({@link LockKind#PERMIT}). The core
     * refuses {@code LockClient.semaphore(...)} on a backend that returns false, and never sends it a
     * permit request. A backend that returns true keeps permits apart from locks of the same name,
     * grants at most {@link LockRequest#permits()} of one name at a time, gives each permit a fencing
     * token that strictly increases per name, and renews and releases permit grants through the same
     * methods as lock grants.
     *
     * @return {@code false} by default
     */
    default boolean supportsPermits() {
        return false;
    }

    /**
     * Extends a grant held by this owner to {@code leaseTime} from now on the backend's clock.
     *
     * @param grant the grant to extend, as returned by the last acquire or renew
     * @param leaseTime the new lease time, counted from when the backend handles the call
     * @return the renewed grant, or empty if the backend no longer has this grant (it expired and may
     *     have been taken by another owner); the core then reports the lease lost
     * @throws LockUnavailableException if the backend could not be asked; the core retries until the
     *     lease's validity runs out
     */
    Optional<Grant> renew(Grant grant, Duration leaseTime);

    /**
     * Refuses an extension ({@link dev.baton.Lease#extend}) this backend cannot serve: the core then
     * calls {@link #renew} with {@code extension} as the lease time, and the backend must keep the
     * grant at least that long from the call. The default accepts any positive extension.
     *
     * @param lock the lock's name, for the message
     * @param leaseTime the lease time the grant was acquired with
     * @param extension the lease time asked for; positive
     * @throws dev.baton.LockConfigurationException naming the lock, the backend and the range it
     *     allows, if it cannot keep a grant acquired with {@code leaseTime} for {@code extension}
     */
    default void checkExtension(String lock, Duration leaseTime, Duration extension) {}

    /**
     * The most grants the core hands to one {@link #renewAll} call. The default, 1, means that the
     * backend renews grant by grant: the core then calls {@link #renew} once per grant, each call on
     * its own, so that no grant's renewal waits for another's round trip. A backend that renews many
     * grants in one round trip (one script, one statement) returns how many it takes per call, and
     * overrides {@link #renewAll}.
     *
     * @return the most grants per {@link #renewAll} call; at least 1
     */
    default int renewalBatchSize() {
        return 1;
    }

    /**
     * Extends several grants of this client, all with the same {@code leaseTime}, in as few round
     * trips as the backend allows: at most {@link #renewalBatchSize()} grants per call.
     *
     * <p>Why synchronous: the core calls it on a small pool of its own (a few calls in flight per
     * client, each with up to a batch of grants), so a blocking JDBC statement or a Lettuce call
     * bounded by its command timeout is all a backend writes, and a call that hangs holds only its
     * own grants back, never the other calls in flight.
     *
     * <p>Failure semantics: the result holds one entry per grant, in the order given; an entry is
     * the renewed grant, or empty when the backend no longer has that grant (it is then reported
     * lost), exactly as {@link #renew} would say for it alone. A call that throws {@link
     * LockUnavailableException} failed for every grant in it: the core retries each one while it is
     * still valid, so a backend that renews in parts (one call per Cluster slot, one per Redlock
     * master) may throw when one part failed, and renewing the other parts again is harmless.
     *
     * <p>The default renews grant by grant with {@link #renew}.
     *
     * @param grants at most {@link #renewalBatchSize()} grants held by this client
     * @param leaseTime the new lease time of every grant, counted from when the backend handles it
     * @return one entry per grant, in the order given: the renewed grant, or empty if it is gone
     * @throws LockUnavailableException if the backend could not be asked; every grant in the call
     *     counts as not renewed this round
     */
    default List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        List<Optional<Grant>> renewed = new ArrayList<>(grants.size());
        for (Grant grant : grants) {
            renewed.add(renew(grant, leaseTime));
        }
        return renewed;
    }

    /**
     * Releases a grant if, and only if, it is still held by its owner; never touches another owner's
     * grant. Idempotent.
     *
     * @param grant the grant to release, as returned by the last acquire or renew
     * @return {@code true} if the grant was held and is now released
     * @throws LockUnavailableException if the backend could not be asked
     */
    boolean release(Grant grant);

    /**
     * Removes whatever an attempt may have left behind when its outcome is unknown to the caller (the
     * call failed or was interrupted after it may have reached the backend). Must be safe when the
     * attempt left nothing. The default releases by owner id.
     *
     * @param request the attempt whose outcome is unknown; its owner id identifies what to remove
     * @throws LockUnavailableException if the backend could not be asked; the leftover then expires
     *     after its lease time
     */
    default void abandon(LockRequest request) {
        release(Grant.of(request, 0, java.time.Instant.EPOCH));
    }

    /**
     * What the backend knows about a lock, for diagnostics and the {@code baton status} command.
     * Empty when the lock is free or the backend cannot tell.
     *
     * @param name the lock to look at
     * @return the holders and expiry as the backend reports them, or empty
     * @throws LockUnavailableException if the backend could not be asked
     */
    default Optional<LockInfo> inspect(String name) {
        return Optional.empty();
    }

    /**
     * Every lock and semaphore held in this backend's namespace whose name starts with {@code prefix},
     * for the {@code baton locks} command and {@link dev.baton.LockAdmin#locks}. Each entry is what
     * {@link #inspect} would say of it, with holder descriptions and, where the backend can tell, the
     * number of waiters; a name held both as a lock and as a semaphore gives two entries. Grants
     * already expired are left out. A backend that reads its whole key space to find them (Redis
     * scans in batches) says so in its Javadoc; the list is a snapshot, not a transaction.
     *
     * @param prefix the start of the names to list; empty for every name
     * @return the held locks and semaphores, sorted by name and then kind
     * @throws LockUnavailableException if the backend could not be asked
     * @throws UnsupportedOperationException if the backend cannot enumerate its locks (the default)
     */
    default List<LockInfo> list(String prefix) {
        throw new UnsupportedOperationException(name() + " cannot list its locks");
    }

    /**
     * How {@link #list} finds the locks, for the people reading its output ({@code baton locks}
     * prints it): whether it reads an index of its own or scans the whole key space.
     *
     * @return for example {@code "scans the keys baton:* in batches of 1000 (SCAN)"}; empty by
     *     default
     */
    default String listingMethod() {
        return "";
    }

    /**
     * Breaks grants of {@code name} held by other clients: an operator's tool for a holder that is
     * stuck or gone while its lease still runs ({@link dev.baton.LockAdmin#forceRelease}). Guarantees:
     * the next grant of the name gets a fencing token above every broken holder's; a broken holder
     * learns it at its next renewal at the latest ({@link #renew} says the grant is gone, so the core
     * reports the lease lost); nothing but the grants reported broken is touched, and waiters are
     * woken as on a release.
     *
     * <p>The default lists the name ({@link #list}) and removes each holder with {@link #abandon},
     * which is enough for a backend whose grants live in the store, released by owner id from any
     * connection. A backend whose grants are bound to a holder's session or connection (advisory
     * locks, row locks held by an open transaction) overrides it.
     *
     * @param name the lock or semaphore name
     * @param ownerId the one holder to break ({@link Holder#ownerId()}), or {@code null} for every
     *     holder of the name: its lock, both sides of its read/write lock and its semaphore's permits
     * @return what was broken, one entry per kind with only the broken holders; empty if nothing of
     *     {@code name} (or of that owner) was held
     * @throws LockUnavailableException if the backend could not be asked; some holders may then be
     *     broken and others not, and a second call finishes the work
     * @throws UnsupportedOperationException if the backend can neither list nor break its locks
     */
    default List<LockInfo> forceRelease(String name, String ownerId) {
        List<LockInfo> broken = new ArrayList<>();
        for (LockInfo info : list(name)) {
            if (!info.name().equals(name)) {
                continue;
            }
            List<Holder> hit = info.holders().stream()
                    .filter(holder -> ownerId == null || holder.ownerId().equals(ownerId))
                    .toList();
            for (Holder holder : hit) {
                abandon(LockRequest.builder(name, holder.ownerId(), info.kind(), Duration.ofSeconds(1))
                        .permits(info.permits())
                        .build());
            }
            if (!hit.isEmpty()) {
                broken.add(LockInfo.of(name, info.kind(), hit)
                        .withPermits(info.permits())
                        .withWaiters(info.waiters()));
            }
        }
        return broken;
    }

    /** Closes connections and threads the backend owns. Idempotent. */
    @Override
    void close();
}
