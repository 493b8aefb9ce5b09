package dev.baton.jdbc;

import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications.Subscription;
import dev.baton.spi.WaitQueue;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The fair line of the row strategies as the core drives it: an attempt is the backend's ordinary
 * {@code tryAcquire}, which serves the head of the waiters table first; a refused request joins the
 * line ({@link FairQueue#join}) and tries again at once, since a release between the two would
 * otherwise go unnoticed until the next fallback attempt. The membership ends when the request is
 * granted or leaves.
 */
final class SubscribedLine implements WaitQueue {
    private final Function<LockRequest, Optional<Grant>> attempt;
    private final BiFunction<LockRequest, Runnable, Subscription> join;

    SubscribedLine(
            Function<LockRequest, Optional<Grant>> attempt, BiFunction<LockRequest, Runnable, Subscription> join) {
        this.attempt = attempt;
        this.join = join;
    }

    @Override
    public Entry enter(LockRequest request, Runnable wake) {
        Optional<Grant> first = attempt.apply(request);
        if (first.isPresent()) {
            return new Member(request, null, first);
        }
        Member member = new Member(request, join.apply(request, wake), Optional.empty());
        try {
            Optional<Grant> second = member.attempt();
            return second.isPresent() ? new Member(request, null, second) : member;
        } catch (RuntimeException e) {
            member.leave();
            throw e;
        }
    }

    private final class Member implements Entry {
        private final LockRequest request;
        private final Subscription membership;
        private final Optional<Grant> grantedOnEntry;

        Member(LockRequest request, Subscription membership, Optional<Grant> grantedOnEntry) {
            this.request = request;
            this.membership = membership;
            this.grantedOnEntry = grantedOnEntry;
        }

        @Override
        public Optional<Grant> grantedOnEntry() {
            return grantedOnEntry;
        }

        @Override
        public Optional<Grant> attempt() {
            Optional<Grant> grant = attempt.apply(request);
            if (grant.isPresent() && membership != null) {
                membership.close(); // a granted member's entry is gone: closing dequeues nothing
            }
            return grant;
        }

        @Override
        public void leave() {
            if (membership != null) {
                membership.close();
            }
        }
    }
}
