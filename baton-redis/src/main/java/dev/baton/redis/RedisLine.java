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
 * release channels) and tries again at once ({@link WaitQueue#tryThenJoin}).
 */
final class RedisLine implements WaitQueue {
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
        return WaitQueue.tryThenJoin(request, attempt, () -> join.apply(request, wake));
    }
}
