package dev.baton.spi;

import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A line of waiters that a backend keeps on its server ({@link Waiting#queue}): a ZooKeeper or etcd
 * queue of nodes, a Redis list of tickets, a table of waiters. The core enters a request that has to
 * wait, retries it when the backend says its turn may have come, and makes it leave when it stops
 * waiting (granted elsewhere, timed out, cancelled, interrupted, or the client closed).
 *
 * <p>Threads: every method here may block for I/O, bounded by the backend's operation timeout, and
 * is called on a thread of the core (the caller's own thread for the blocking API), never on a thread
 * of the backend. For one entry the core makes one call at a time, in the order enter, attempt...,
 * then at most one leave; calls for different entries run concurrently.
 */
public interface WaitQueue {

    /**
     * Takes the lock for {@code request} if it can be taken now, and otherwise joins the line, in as
     * few round trips as the backend allows (one, where the server can try and enqueue in one
     * statement or script).
     *
     * @param request the waiting request; its owner id identifies the entry
     * @param wake called by the backend, on any thread, whenever an attempt of this entry may now
     *     succeed: the entry before it left, a release was announced, the connection came back. It
     *     must not block, and never does: the core only schedules an attempt. An extra call costs an
     *     attempt; a missed one delays the waiter until the core's next fallback attempt, which comes
     *     at least once per {@link dev.baton.LockOptions#pollMaxDelay()} while the entry waits (so a
     *     backend may let an entry that stops attempting expire after a few such intervals)
     * @return the entry, granted at once or waiting
     * @throws dev.baton.LockUnavailableException if the backend could not be asked; the core then
     *     calls {@link LockBackend#abandon} for the request, as for a failed {@link
     *     LockBackend#tryAcquire}
     */
    Entry enter(LockRequest request, Runnable wake);

    /**
     * {@link #enter} for a line whose attempt is the backend's ordinary acquire, which grants a free
     * lock only to the head of the line: tries first without joining, so that an uncontended
     * acquisition costs what it always did; a refused request then joins and tries once more at once,
     * since a release between the try and the join would otherwise wake nobody until the core's next
     * fallback attempt. The entry's membership ends with its grant ({@code end(true)}) or when it
     * leaves ({@code end(false)}); if the second try fails, the entry leaves before the failure is
     * thrown.
     *
     * @param request the waiting request
     * @param attempt the backend's acquire for one request: empty while the lock is taken or another
     *     waiter's turn
     * @param join makes the refused request a member of the line (it captures the {@code wake} of
     *     {@link #enter})
     * @return the entry, granted at once or waiting
     */
    static Entry tryThenJoin(
            LockRequest request, Function<LockRequest, Optional<Grant>> attempt, Supplier<Membership> join) {
        Optional<Grant> first = attempt.apply(request);
        if (first.isPresent()) {
            return Entry.granted(first.get());
        }
        Membership membership = join.get();
        Entry member = Entry.of(
                Optional.empty(),
                () -> {
                    Optional<Grant> grant = attempt.apply(request);
                    if (grant.isPresent()) {
                        membership.end(true);
                    }
                    return grant;
                },
                () -> membership.end(false));
        try {
            Optional<Grant> second = member.attempt();
            return second.isPresent() ? Entry.granted(second.get()) : member;
        } catch (RuntimeException e) {
            member.leave();
            throw e;
        }
    }

    /** A request's membership of a line ({@link #tryThenJoin}): ended once, when it is granted or leaves. */
    @FunctionalInterface
    interface Membership {
        /**
         * Ends the membership.
         *
         * @param granted true when the request took the lock (nothing to dequeue on the server); false
         *     when it gave up (dequeue, and hand on a lock handed to it but never taken)
         */
        void end(boolean granted);
    }

    /** One request's place in the line. */
    interface Entry {

        /**
         * An entry of the backend's calls for one request: {@link #attempt} calls {@code attempt},
         * {@link #leave} calls {@code leave}. The core's order of calls ({@link WaitQueue}) holds for
         * them too, so they need no lock of their own.
         *
         * @param grantedOnEntry the grant if entering took the lock, else empty
         * @param attempt what {@link #attempt} answers
         * @param leave what {@link #leave} does
         * @return the entry
         */
        static Entry of(Optional<Grant> grantedOnEntry, Supplier<Optional<Grant>> attempt, Runnable leave) {
            return new WaitEntry(grantedOnEntry, attempt, leave);
        }

        /**
         * An entry whose request took the lock on entering: the core neither attempts nor leaves it.
         *
         * @param grant the grant made on entry
         * @return the entry
         */
        static Entry granted(Grant grant) {
            return new WaitEntry(Optional.of(grant), Optional::empty, () -> {});
        }

        /**
         * The grant if {@link WaitQueue#enter} took the lock at once. The entry is then done: the core
         * neither attempts nor leaves it.
         *
         * @return the grant made on entry, or empty if the request waits
         */
        Optional<Grant> grantedOnEntry();

        /**
         * Takes the lock if this entry's turn has come. A grant's validity counts, as for {@link
         * LockBackend#tryAcquire}, from when the core made this call: a backend that handed the lock
         * to this entry earlier shortens it ({@link Grant#validity()}) by the time since the hand-over.
         * Once it returns a grant, the entry is done.
         *
         * @return the grant, or empty if the entry must wait on
         * @throws dev.baton.LockUnavailableException if the backend could not be asked; the core then
         *     ends the wait with the failure, after {@link #leave()}
         */
        Optional<Grant> attempt();

        /**
         * Ends the wait without a grant: removes the entry, and releases (hands on to the next waiter)
         * a lock the backend handed to this entry that the core never took. Called at most once, and
         * never after a grant. Leaves nothing behind when the backend answers; when it cannot be
         * reached, the entry must expire on its own (the backend's Javadoc says after how long).
         *
         * @throws dev.baton.LockUnavailableException if the backend could not be asked
         */
        void leave();
    }
}
