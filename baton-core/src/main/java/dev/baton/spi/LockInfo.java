package dev.baton.spi;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What a backend reports about one held lock or semaphore ({@link LockBackend#inspect}, {@link
 * LockBackend#list}).
 *
 * @param name the lock or semaphore name
 * @param kind {@link LockKind#PERMIT} for a semaphore's permits; {@link LockKind#READ} for a lock held
 *     shared; {@link LockKind#WRITE} for a read/write lock's write side where the backend writes a form
 *     of its own for it; {@link LockKind#MUTEX} for any other exclusive hold
 * @param holders the current holders, at least one; one for an exclusive hold
 * @param permits for a semaphore, its number of permits (so {@code holders().size()} of {@code
 *     permits} are in use); 1 for a lock
 * @param waiters how many clients wait for it, when the backend can tell (a queue in the server: a
 *     ZooKeeper or etcd queue, a fair waiters table or list); empty when it cannot
 */
public record LockInfo(String name, LockKind kind, List<Holder> holders, int permits, OptionalInt waiters) {
    /**
     * Checks the components and copies {@code holders}, so that the record stays immutable.
     *
     * @param name the lock or semaphore name
     * @param kind the kind held
     * @param holders the current holders; copied
     * @param permits the semaphore's permits, or 1 for a lock
     * @param waiters how many clients wait, or empty when the backend cannot tell
     * @throws NullPointerException if a component is null or {@code holders} contains null
     * @throws IllegalArgumentException if {@code holders} is empty, {@code permits} is below 1, or an
     *     exclusive kind has more than one holder
     */
    public LockInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(waiters, "waiters");
        holders = List.copyOf(holders);
        if (holders.isEmpty() || permits < 1 || (kind.mode() == LockMode.EXCLUSIVE && holders.size() > 1)) {
            throw new IllegalArgumentException("LockInfo of " + name + ": " + holders.size() + " holders of a " + kind
                    + " with " + permits + " permits");
        }
    }

    /**
     * A lock held by owners that the backend knows by id only, all with the same token and expiry
     * (how backends without holder descriptions report).
     *
     * @param name the lock name
     * @param mode the mode it is held in
     * @param owners owner ids of the current holders; at least one
     * @param fencingToken the current grant's token
     * @param expiresAt the backend's expiry of the grant
     * @throws NullPointerException if a component is null
     */
    public LockInfo(String name, LockMode mode, List<String> owners, long fencingToken, Instant expiresAt) {
        this(
                name,
                mode == LockMode.EXCLUSIVE ? LockKind.MUTEX : LockKind.READ,
                owners.stream()
                        .map(owner -> new Holder(owner, "", fencingToken, expiresAt))
                        .toList(),
                1,
                OptionalInt.empty());
    }

    /**
     * Exclusive or shared, as the kind says.
     *
     * @return {@code kind().mode()}
     */
    public LockMode mode() {
        return kind.mode();
    }

    /**
     * The holders' owner ids.
     *
     * @return one owner id per holder, in the order of {@link #holders()}
     */
    public List<String> owners() {
        return holders.stream().map(Holder::ownerId).toList();
    }

    /**
     * The highest fencing token among the holders: the current grant's token for an exclusive lock.
     *
     * @return the largest {@link Holder#fencingToken()}
     */
    public long fencingToken() {
        return holders.stream().mapToLong(Holder::fencingToken).max().orElseThrow();
    }

    /**
     * When the last holder's grant expires without renewal.
     *
     * @return the latest {@link Holder#expiresAt()}
     */
    public Instant expiresAt() {
        return holders.stream()
                .map(Holder::expiresAt)
                .max(Comparator.naturalOrder())
                .orElseThrow();
    }
}
