package dev.baton.spi;

import java.util.Optional;

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

    /** One request's place in the line. */
    interface Entry {

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
