package dev.baton.internal;

import dev.baton.LockLostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releasing a {@link HeldGrant} on the backend once its state says released (the last hold let go,
 * or the client closes): the local lock state forgets it, a renewal in flight is waited for, the
 * backend is asked to release, and the client and its listeners hear of it. Static, so that a grant
 * carries no object for it.
 */
final class GrantRelease {
    private static final Logger log = LoggerFactory.getLogger(GrantRelease.class);

    private GrantRelease() {}

    /**
     * Releases {@code held} on the backend; a failure is logged, never thrown (the backend frees the
     * lock when its lease runs out). With {@code reportIfGone} (the holder released a grant it
     * believed held), a backend that no longer had the grant means the lease ran out under the holder
     * (a pause, a cut-off past the lease) before any renewal or the watchdog could say so: the
     * holder's onLost listeners hear it now, so that no loss goes unreported.
     */
    static void release(HeldGrant held, boolean reportIfGone) {
        ClientCore client = held.client;
        if (held.thread != null) {
            held.local.removeHolder(held);
        }
        held.stopRenewal();
        try {
            boolean released = client.backend.release(held.grant());
            if (!released && reportIfGone) {
                reportGone(held);
            }
            if (log.isDebugEnabled()) {
                log.debug(
                        released
                                ? "{}: released"
                                : "{}: nothing to release on the backend (already expired or taken over)",
                        held.describe());
            }
        } catch (RuntimeException e) {
            log.warn(
                    "{}: release failed; the backend frees it when its lease time ({}) runs out: {}",
                    held.describe(),
                    held.leaseTime(),
                    e.toString());
        } finally {
            long heldNanos = client.ticker.nanoTime() - held.grantedNanos;
            client.grantReleased(held);
            client.events.leaseReleased(held.acquisition, heldNanos);
        }
    }

    private static void reportGone(HeldGrant held) {
        LockLostException lost = new LockLostException(held.describe()
                + ": lease lost: at release the backend no longer had it (its lease time ran out, a pause or a"
                + " cut-off outlasted it) and another owner may have held it meanwhile; work done under fencing"
                + " token " + held.grant().fencingToken() + " may be stale");
        log.warn(lost.getMessage());
        LossListeners.of(held).tell(lost, false);
        held.client.events.leaseLost(held.acquisition, lost);
    }
}
