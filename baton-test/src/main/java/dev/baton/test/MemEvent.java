package dev.baton.test;

import dev.baton.LockKind;
import java.time.Instant;
import java.util.Objects;

/**
 * One thing that happened to a grant in a {@code mem://} namespace, as {@link MemFaults#events()}
 * reports it: a grant made, released, run out or broken. Immutable.
 */
public final class MemEvent {
    /** What happened. */
    public enum Type {
        /** A grant was made, with a new fencing token (to a waiter too, handed over at a release). */
        GRANTED,
        /** Its holder released it (or a waiter left without taking a grant handed to it). */
        RELEASED,
        /** Its lease ran out on the namespace's clock without a renewal. */
        EXPIRED,
        /**
         * It was broken by {@link dev.baton.LockAdmin#forceRelease} or {@link MemFaults#lose}: its holder
         * is told at its next renewal.
         */
        BROKEN
    }

    private final Type type;
    private final String name;
    private final LockKind kind;
    private final String ownerId;
    private final String holder;
    private final long fencingToken;
    private final Instant at;

    MemEvent(Type type, String name, LockKind kind, String ownerId, String holder, long fencingToken, Instant at) {
        this.type = type;
        this.name = name;
        this.kind = kind;
        this.ownerId = ownerId;
        this.holder = holder;
        this.fencingToken = fencingToken;
        this.at = at;
    }

    /**
     * What happened.
     *
     * @return the event's type
     */
    public Type type() {
        return type;
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
     * What was asked for: a lock, a read/write lock's side or a semaphore permit.
     *
     * @return the grant's kind
     */
    public LockKind kind() {
        return kind;
    }

    /**
     * The owner id of the grant, as {@link dev.baton.Holder#ownerId()} reports it.
     *
     * @return 32 hex characters
     */
    public String ownerId() {
        return ownerId;
    }

    /**
     * Who took the grant: the client's name, host, process id and thread, as the client recorded it.
     *
     * @return the holder description; empty when the client recorded none
     */
    public String holder() {
        return holder;
    }

    /**
     * The grant's fencing token, the one its {@link dev.baton.Lease#fencingToken()} returns.
     *
     * @return strictly increasing across the grants of a namespace
     */
    public long fencingToken() {
        return fencingToken;
    }

    /**
     * When it happened, on the namespace's clock ({@link MemFaults#advanceClock} moves it).
     *
     * @return the time
     */
    public Instant at() {
        return at;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof MemEvent that
                && type == that.type
                && name.equals(that.name)
                && kind == that.kind
                && ownerId.equals(that.ownerId)
                && holder.equals(that.holder)
                && fencingToken == that.fencingToken
                && at.equals(that.at);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, name, kind, ownerId, holder, fencingToken, at);
    }

    @Override
    public String toString() {
        return type + " " + kind + " '" + name + "' token " + fencingToken + " owner " + ownerId
                + (holder.isEmpty() ? "" : " (" + holder + ")") + " at " + at;
    }
}
