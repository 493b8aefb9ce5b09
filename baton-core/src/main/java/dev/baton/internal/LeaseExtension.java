package dev.baton.internal;

import dev.baton.LockConfigurationException;
import dev.baton.LockLostException;
import dev.baton.spi.Grant;
import java.time.Duration;
import java.util.Optional;

/**
 * {@link dev.baton.Lease#extend}: one renewal of a grant, on the caller's thread, with the lease time
 * the caller asks for. Like a renewal it holds the grant's renewal lock while it talks to the
 * backend (a release waits for it, and it waits for a renewal in flight) and counts validity from the
 * send time; unlike one it changes nothing in the renewal schedule.
 */
final class LeaseExtension {
    private LeaseExtension() {}

    static void extend(HeldGrant held, Duration extension) {
        String lock = held.describe();
        if (extension == null || extension.isZero() || extension.isNegative()) {
            throw new LockConfigurationException(
                    lock + ": cannot extend by " + extension + "; give a positive duration");
        }
        if (held.options.autoRenew() && extension.compareTo(held.options.leaseTime()) < 0) {
            throw new LockConfigurationException(lock + ": cannot extend an auto-renewed lease by " + extension
                    + ", less than its lease time (" + held.options.leaseTime() + "): it would run out before"
                    + " the next automatic renewal; extend by at least the lease time, or acquire with"
                    + " LockOptions autoRenew(false) to manage the lease yourself");
        }
        held.client.backend.checkExtension(held.local.name, held.options.leaseTime(), extension);
        held.beginExtension();
        try {
            throwIfNotHeld(held);
            long sentAt = held.client.ticker.nanoTime();
            Optional<Grant> answer = held.client.backend.renew(held.grant(), extension);
            if (answer == null || answer.isEmpty()) {
                LeaseRenewer.refused(held);
                throw lost(held);
            }
            if (!LeaseRenewer.renewed(held, answer.get(), sentAt, extension, false)) {
                throw lost(held);
            }
        } finally {
            held.endRenewal();
            LossListeners.report(held);
        }
    }

    private static void throwIfNotHeld(HeldGrant held) {
        switch (held.status()) {
            case RELEASED -> throw new IllegalStateException(
                    held.describe() + ": cannot extend a lease that has been released");
            case LOST -> throw lost(held);
            case HELD -> {
                if (!held.isValid()) {
                    held.markLost(held.leaseDescription() + " elapsed before it was extended", null);
                    throw lost(held);
                }
            }
        }
    }

    private static LockLostException lost(HeldGrant held) {
        LockLostException cause = held.lostCause();
        if (cause == null) {
            return new LockLostException(held.describe() + ": cannot extend, the lease is no longer held");
        }
        return new LockLostException(cause.getMessage(), cause);
    }
}
