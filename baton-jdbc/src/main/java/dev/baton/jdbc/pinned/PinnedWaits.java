package dev.baton.jdbc.pinned;

import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long a grant of a pinned strategy (advisory, named locks, pessimistic) may count as held when
 * its attempt waited in the database's own queue ({@link LockBackend#acquire}).
 *
 * <p>Why: such a grant lives as long as its session, which the database ends once it has been idle for
 * the lease time ({@code idle_session_timeout}, {@code idle_in_transaction_session_timeout}, {@code
 * wait_timeout}), counted from the end of the statement that took the lock where that statement also
 * set the bound (PostgreSQL's advisory wait does). The core counts a queued
 * grant from when acquire returned, which may be long after that statement ended: a client stopped
 * (SIGSTOP, a long GC pause) while the database's answer was in flight reads it only when it runs
 * again, after the database may have ended the session and granted the lock to another client. So
 * the grant counts from when the attempt began, no later than the statement that took it was sent;
 * when less than half the lease is left that way (the attempt waited in the queue, or was stopped),
 * one renewal confirms the session and counts from its own send, and a grant whose session is gone
 * is released and not handed out.
 */
public final class PinnedWaits {
    private static final Logger log = LoggerFactory.getLogger(PinnedWaits.class);

    private PinnedWaits() {}

    /**
     * {@code grant}, returned by an attempt that began at {@code calledNanos}, with the validity its
     * session guarantees from now, or empty if its session ended meanwhile (then released).
     *
     * @param backend renews and releases the grant
     */
    public static Optional<Grant> counted(LockBackend backend, LockRequest request, Grant grant, long calledNanos) {
        long lease = request.leaseTime().toNanos();
        long left = lease - (System.nanoTime() - calledNanos);
        if (left >= lease / 2) {
            return Optional.of(grant.withValidity(Duration.ofNanos(left)));
        }
        long sent = System.nanoTime();
        Optional<Grant> confirmed;
        try {
            confirmed = backend.renew(grant, request.leaseTime());
        } catch (RuntimeException e) {
            log.debug("Baton lock '{}' on {}: confirming it failed: {}", request.name(), backend.name(), e.toString());
            confirmed = Optional.empty(); // not confirmed: not handed out
        }
        if (confirmed.isEmpty()) {
            log.info(
                    "Baton lock '{}' on {}: the grant (token {}) was read {} ms after the attempt began, and its"
                            + " session could not be confirmed (it may have ended meanwhile); not handed out",
                    request.name(),
                    backend.name(),
                    grant.fencingToken(),
                    (System.nanoTime() - calledNanos) / 1_000_000);
            try {
                backend.release(grant);
            } catch (RuntimeException e) {
                log.debug(
                        "Baton lock '{}' on {}: releasing it failed: {}", request.name(), backend.name(), e.toString());
            }
            return Optional.empty();
        }
        long confirmedLeft = lease - (System.nanoTime() - sent);
        return Optional.of(confirmed.get().withValidity(Duration.ofNanos(Math.max(0, confirmedLeft))));
    }
}
