package dev.baton.redis;

import dev.baton.LockMode;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import dev.baton.spi.ReleaseNotifications.Subscription;
import dev.baton.spi.WaitQueue;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Fair hand-off for Redlock's exclusive locks: the masters agree on whom a free lock goes to.
 *
 * <p>Design. A waiter draws its ticket once, when it starts waiting (after its first refused
 * attempt): this client's wall-clock time in microseconds (exact in a sorted set's double score). Every later attempt of the same
 * acquisition (its owner id is constant) writes the same ticket as the owner's score in the lock's
 * {@code tickets} sorted set on every master ({@link RedisScripts#REDLOCK_ACQUIRE}). A master grants
 * a free lock only to the head of that set, the lowest ticket, ties broken by the lowest owner id
 * (Redis orders equal scores by member), or to anyone while the set is empty, so the uncontended
 * path stays one script per master in one parallel round. Because the ticket is decided by the
 * client and written identically everywhere, every master that has seen the same waiters names the
 * same head. The releasing client's immediate re-acquire is refused while another client's waiter
 * is queued (its own ticket, if it waits, is later).
 *
 * <p>No split forever. Masters can disagree only while a waiter's entry has reached some masters but
 * not others (or one of them expired); a round in which no one wins a majority is released
 * everywhere as in plain Redlock, but the entries stay (an entry leaves only once {@link
 * RedisScripts#RAISE} confirms a majority grant, or its waiter gives up). By the next round every
 * master that answers has every live waiter's entry, so they all name the same head, which then
 * wins every master that answers: a majority whenever a majority is reachable. Two waiters cannot
 * keep splitting the masters between them.
 *
 * <p>A waiter that dies. Its entry expires {@link #entryTtlMillis} after its latest attempt: about
 * two of the waiters' longest poll pauses plus two node timeouts, at least one second and never
 * more than the lease time; a live waiter attempts at least once per poll pause, and at once when a
 * release is published, so it keeps its entry. A dead head therefore delays the next waiter by that
 * time plus one poll pause, well under the default 30 s lease; a live waiter whose entry expired
 * (a long pause, a partition) writes it again with the same ticket and gets its place back. A waiter
 * that times out, is interrupted or whose client closes removes its entry from every master at once.
 *
 * <p>Limits. The order is by client clocks: a client whose clock is behind by d gets ahead of
 * waiters that started less than d before it (so keep clocks synchronised, as Redlock's lease
 * arithmetic assumes anyway); within one client only the longest-waiting thread competes (the
 * core's local queue). Shared (read) locks are not queued: a writer waiting for readers and readers
 * waiting for a writer poll as before. {@code fair=false} writes no tickets (plain Redlock: the
 * first to reach a majority after a release wins, which can starve other clients' waiters); it
 * still defers to tickets written by fair clients on the same lock.
 */
final class RedlockTickets {
    /** One waiting acquisition's ticket. */
    static final class Ticket {
        final String score;
        /** Set once a majority granted: its entries are gone, leaving needs no round. */
        volatile boolean confirmed;

        Ticket(long score) {
            this.score = Long.toString(score);
        }
    }

    private final boolean fair;
    private final long entryTtlMillis;
    private final ConcurrentHashMap<String, Ticket> tickets = new ConcurrentHashMap<>();

    RedlockTickets(boolean fair, Duration pollMaxDelay, Duration nodeTimeout) {
        this.fair = fair;
        this.entryTtlMillis = Math.max(1000, 2 * pollMaxDelay.toMillis() + 2 * nodeTimeout.toMillis());
    }

    boolean fair() {
        return fair;
    }

    /** Whether {@code request} takes part in the queue: exclusive locks of a fair client. */
    boolean queues(LockRequest request) {
        return fair && request.mode() == LockMode.EXCLUSIVE;
    }

    /** How long a waiter's entry outlives its latest attempt on a master, for a lease of this length. */
    long entryTtlMillis(Duration leaseTime) {
        return Math.max(1, Math.min(entryTtlMillis, leaseTime.toMillis()));
    }

    /** The ticket of a waiting request, or null before it waits (its first attempt). */
    Ticket ticket(LockRequest request) {
        return tickets.get(request.ownerId());
    }

    /**
     * Makes a refused request a member of the line: it draws its ticket (written by its next attempt
     * on every master) and subscribes to the release channel; ending the membership without a grant
     * leaves the line ({@code leave}) unless a majority already confirmed a grant to it.
     */
    WaitQueue.Membership join(
            LockRequest request, Runnable wake, ReleaseNotifications channel, Consumer<LockRequest> leave) {
        Subscription subscription = channel.subscribe(request.name(), wake);
        java.time.Instant now = java.time.Instant.now();
        Ticket ticket = new Ticket(now.getEpochSecond() * 1_000_000 + now.getNano() / 1000);
        tickets.put(request.ownerId(), ticket);
        return granted -> {
            try {
                subscription.close();
            } finally {
                tickets.remove(request.ownerId(), ticket);
                if (!granted && !ticket.confirmed) {
                    leave.accept(request);
                }
            }
        };
    }
}
