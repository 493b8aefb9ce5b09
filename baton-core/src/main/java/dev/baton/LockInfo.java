package dev.baton;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What a backend reports about one held lock or semaphore: its holders and, where the backend can
 * tell, its waiters ({@link LockAdmin#locks}, {@link LockAdmin#status}). Immutable; made with {@link
 * #of} and the {@code with} methods, so that a field can be added later without breaking a backend.
 */
public final class LockInfo {
    private final String name;
    private final LockKind kind;
    private final List<Holder> holders;
    private final int permits;
    private final OptionalInt waiters;

    private LockInfo(String name, LockKind kind, List<Holder> holders, int permits, OptionalInt waiters) {
        this.name = Objects.requireNonNull(name, "name");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.holders = List.copyOf(holders);
        this.permits = permits;
        this.waiters = Objects.requireNonNull(waiters, "waiters");
        if (this.holders.isEmpty() || permits < 1 || (kind.mode() == LockMode.EXCLUSIVE && this.holders.size() > 1)) {
            throw new IllegalArgumentException("LockInfo of " + name + ": " + this.holders.size() + " holders of a "
                    + kind + " with " + permits + " permits");
        }
    }

    /**
     * A held lock (permits 1, waiters unknown).
     *
     * @param name the lock or semaphore name
     * @param kind {@link LockKind#PERMIT} for a semaphore's permits; {@link LockKind#READ} for a lock
     *     held shared; {@link LockKind#WRITE} for a read/write lock's write side where the backend
     *     writes a form of its own for it; {@link LockKind#MUTEX} for any other exclusive hold
     * @param holders the current holders, at least one; one for an exclusive hold; copied
     * @return the description
     * @throws NullPointerException if a component is null or {@code holders} contains null
     * @throws IllegalArgumentException if {@code holders} is empty or an exclusive kind has more than one
     */
    public static LockInfo of(String name, LockKind kind, List<Holder> holders) {
        return new LockInfo(name, kind, holders, 1, OptionalInt.empty());
    }

    /**
     * This description with a semaphore's permit count.
     *
     * @param permits its number of permits (so {@code holders().size()} of them are in use); at least 1
     * @return a copy with {@code permits}
     * @throws IllegalArgumentException if {@code permits} is below 1
     */
    public LockInfo withPermits(int permits) {
        return new LockInfo(name, kind, holders, permits, waiters);
    }

    /**
     * This description with the number of waiters, for a backend that can tell (a queue in the server:
     * a ZooKeeper or etcd queue, a fair waiters table or list).
     *
     * @param waiters how many clients wait for it, or empty when the backend cannot tell
     * @return a copy with {@code waiters}
     */
    public LockInfo withWaiters(OptionalInt waiters) {
        return new LockInfo(name, kind, holders, permits, waiters);
    }

    /**
     * The lock or semaphore name.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * What is held.
     *
     * @return the kind of the holds
     */
    public LockKind kind() {
        return kind;
    }

    /**
     * The current holders.
     *
     * @return at least one; unmodifiable
     */
    public List<Holder> holders() {
        return holders;
    }

    /**
     * For a semaphore, its number of permits.
     *
     * @return the permit count; 1 for a lock
     */
    public int permits() {
        return permits;
    }

    /**
     * How many clients wait for it.
     *
     * @return the count, or empty when the backend cannot tell
     */
    public OptionalInt waiters() {
        return waiters;
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

    @Override
    public boolean equals(Object other) {
        return other instanceof LockInfo that
                && name.equals(that.name)
                && kind == that.kind
                && holders.equals(that.holders)
                && permits == that.permits
                && waiters.equals(that.waiters);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, kind, holders, permits, waiters);
    }

    @Override
    public String toString() {
        return "LockInfo[" + name + ", " + kind + ", holders " + holders
                + (permits > 1 ? ", permits " + permits : "")
                + (waiters.isPresent() ? ", waiters " + waiters.getAsInt() : "") + "]";
    }
}
