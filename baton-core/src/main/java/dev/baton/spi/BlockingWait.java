package dev.baton.spi;

import java.util.Optional;

/**
 * A wait that is one blocking call pinning a connection ({@link Waiting#blocking}): an advisory lock
 * or a row lock taken in a transaction that stays open for the lease. The database queues the
 * waiters; the call returns when the lock is granted or the time runs out.
 */
@FunctionalInterface
public interface BlockingWait {

    /**
     * Waits for the grant. Whatever way it ends without a grant (timeout, interrupt, failure, the
     * backend being closed), it leaves nothing behind: the connection's lock request is withdrawn
     * before the method returns or throws.
     *
     * @param request the lock name, owner id, mode and lease time wanted
     * @param timeoutNanos how long to wait; negative means without limit (never 0: the core makes
     *     single attempts with {@link LockBackend#tryAcquire})
     * @return the grant, whose validity counts from when the call returns, or empty if the time ran out
     * @throws InterruptedException if the thread was interrupted while waiting (the asynchronous API
     *     interrupts its pool thread when its caller cancels)
     * @throws dev.baton.LockUnavailableException if the backend could not be asked, or was closed
     *     meanwhile
     */
    Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException;
}
