package dev.baton.test;

import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import java.util.Optional;

/**
 * The line of waiters of a {@code mem://} namespace, as the core drives it: the SPI's reference
 * {@link WaitQueue} for backend authors. The rules themselves are in {@link MemHolds}; what a server
 * backend must get right is how this side maps onto them:
 *
 * <ul>
 *   <li>{@link #enter} tries and joins in one step. A backend that tries, then joins in a second round
 *       trip, must try once more after joining, since a release between the two would wake nobody
 *       (Redis' line does this).
 *   <li>A release hands the lock to the head of the line (it is granted to that waiter, then the
 *       waiter is woken), instead of freeing it for whoever asks next: so another client's immediate
 *       re-acquire finds it taken, which is what makes the line fair, and only the waiter whose turn
 *       came is woken, which spares the herd.
 *   <li>{@link Entry#attempt} takes a lock handed over. Its lease ran from the hand-over, so its
 *       validity is what is left of it ({@link Grant#validity()}), never the whole lease time.
 *   <li>{@link Entry#leave} gives a lock handed over but never taken to the next waiter; a backend that
 *       only removed the waiter would leave the lock held until its lease ran out.
 *   <li>A waiter that stops calling (its process died, or stands still) is dropped after a few of the
 *       core's fallback periods ({@code pollMaxDelay}), so that it cannot hold the line; if it calls
 *       again it joins at the back. A lock handed to it meanwhile is released with it.
 * </ul>
 */
final class MemWaitQueue implements WaitQueue {
    private final MemLockBackend backend;
    private final MemNamespace namespace;

    MemWaitQueue(MemLockBackend backend, MemNamespace namespace) {
        this.backend = backend;
        this.namespace = namespace;
    }

    @Override
    public Entry enter(LockRequest request, Runnable wake) {
        backend.checkReachable(request.name());
        MemHolds.Waiter waiter = new MemHolds.Waiter(request, wake, backend.staleAfterNanos());
        Optional<Grant> granted = namespace.enter(waiter, backend.name());
        return Entry.of(
                granted,
                () -> {
                    backend.checkReachable(request.name());
                    return namespace.attempt(waiter, backend.name());
                },
                () -> {
                    backend.checkReachable(request.name());
                    namespace.leave(waiter);
                });
    }
}
