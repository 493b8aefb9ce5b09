package dev.baton.redis;

import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The line of fair exclusive waiters on Redis and Redlock, as the core drives it: an attempt is the
 * backend's ordinary acquire script, which sees (by the owner id) that the request waits and grants a
 * free lock only to the head of the line. Entering tries first, without joining, so an uncontended
 * acquisition costs what it always did; a refused request then joins (a queue entry, a ticket, the
 * release channels) and tries again at once, since a release between the two would otherwise go
 * unnoticed until the next fallback attempt.
 */
final class RedisLine implements WaitQueue {

    /** A request's membership: ended once, when it is granted or leaves. */
    interface Membership {
        /**
         * Ends the membership.
         *
         * @param granted true when the request took the lock (nothing to dequeue on the server); false
         *     when it gave up (dequeue, and hand on a lock handed to it but never taken)
         */
        void end(boolean granted);
    }

    private final Function<LockRequest, Optional<Grant>> attempt;
    private final BiFunction<LockRequest, Runnable, Membership> join;

    /**
     * @param attempt the backend's acquire script for one request
     * @param join makes a refused request a member of the line, woken by {@code wake}
     */
    RedisLine(Function<LockRequest, Optional<Grant>> attempt, BiFunction<LockRequest, Runnable, Membership> join) {
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
        private final Membership membership;
        private final Optional<Grant> grantedOnEntry;

        Member(LockRequest request, Membership membership, Optional<Grant> grantedOnEntry) {
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
                membership.end(true);
            }
            return grant;
        }

        @Override
        public void leave() {
            if (membership != null) {
                membership.end(false);
            }
        }
    }
}
