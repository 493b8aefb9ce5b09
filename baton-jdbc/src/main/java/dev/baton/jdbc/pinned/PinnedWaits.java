package dev.baton.jdbc.pinned;

import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long a grant of a pinned strategy may count as held when its attempt waited in the database's
 * own queue ({@link LockBackend#acquire}). Its session ends once idle for the lease, counted from the
 * end of the statement that took the lock, while a client stopped (a long GC pause) with the answer in
 * flight reads it only later: so the grant counts from when the attempt began, and when less than
 * half the lease is left that way one renewal confirms the session and counts from its own send; a
 * grant whose session is gone is released and not handed out.
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
