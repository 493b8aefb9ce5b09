package dev.baton.zookeeper;

import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.zookeeper.ZooKeeperHeldNodes.HeldNode;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long a grant may be treated as held on the evidence of one answered request of its session.
 *
 * <p>Why: the server expires a session, and with it every node the session owns, once it has heard
 * nothing from the client for the session timeout it negotiated; and it negotiates what it allows,
 * not what the URI asks for (by default 2 to 20 of its ticks: 30 s asked of a server ticking every
 * second gives 20 s). A request of the session sent at {@code t} and answered was heard at {@code t}
 * or later, so it proves the session's nodes alive until {@code t} plus that timeout, and no longer:
 * a holder stopped or cut off for longer may have lost them, and another client may hold the lock.
 * So every grant and renewal is valid for the shorter of its lease time and the negotiated session
 * timeout, counted from the send time of the last request the server answered; the timeout is read
 * from the connection that answered, so a reconnection to a server that negotiates another one, or a
 * new session, is followed. On an ensemble the leader, which expires sessions, learns of a request a
 * follower answered at the follower's next ping (every half tick): a client silent for almost the
 * whole timeout before that request can lose its session in that window, which no client-side bound
 * can see (docs/lease-validity.md lists it).
 *
 * <p>A lease time longer than the session timeout is not refused: the negotiated timeout is known only
 * once the client is connected (connecting does no I/O), and a shorter validity keeps every guarantee;
 * the lease is renewed within the session timeout instead (the core renews at half of what is left),
 * and a pause, a cut-off or a lease without auto-renewal loses it after the session timeout rather than
 * the lease time. Because that differs from what the user configured, the first grant or renewal that
 * meets it logs one WARN per client naming both values and the fix.
 */
final class ZooKeeperSessionBound {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperSessionBound.class);

    private final String backendName;
    private final Duration requested;
    private final AtomicBoolean warned = new AtomicBoolean();

    /**
     * @param backendName the backend as messages name it
     * @param requested the session timeout the URI asks for, for the warning
     */
    ZooKeeperSessionBound(String backendName, Duration requested) {
        this.backendName = backendName;
        this.requested = requested;
    }

    /**
     * The validity of a grant of {@code leaseTime}, counted from {@code now}, when a request of its
     * session sent at {@code answeredSentAt} was answered on a connection whose negotiated session
     * timeout is {@code sessionTimeoutMillis}.
     *
     * @param now when the core's count starts ({@link System#nanoTime()}), not before {@code
     *     answeredSentAt}
     * @return {@code null} when the lease time is the shorter (the full lease time, as the core
     *     counts it), else what is left of the session's proof at {@code now}; never negative
     */
    Duration validity(Duration leaseTime, int sessionTimeoutMillis, long answeredSentAt, long now) {
        long session = TimeUnit.MILLISECONDS.toNanos(Math.max(0, sessionTimeoutMillis));
        if (leaseTime.toNanos() > session) {
            warnOnce(leaseTime, sessionTimeoutMillis);
        }
        long left = answeredSentAt + session - now;
        return leaseTime.toNanos() <= left ? null : Duration.ofNanos(Math.max(0, left));
    }

    /**
     * The grant of {@code request}, whose node holds it now, as the last answer of {@code session}
     * proves: valid for the lease time or until that answer's proof runs out, whichever is sooner,
     * counted from this call. The core counts it from when it made the attempt that returns it, which
     * is earlier, so the grant never outlives that proof.
     */
    Grant grant(LockRequest request, long token, HeldNode node, ZooKeeperOwnSession session) {
        Duration leaseTime = request.leaseTime();
        long now = System.nanoTime();
        Duration validity = validity(leaseTime, session.sessionTimeoutMillis(), session.answeredSentAt(), now);
        return Grant.of(request, token, Instant.now().plus(validity == null ? leaseTime : validity))
                .withBackendState(node)
                .withValidity(validity);
    }

    private void warnOnce(Duration leaseTime, int sessionTimeoutMillis) {
        if (!warned.compareAndSet(false, true)) {
            return;
        }
        String session = millis(sessionTimeoutMillis);
        String lease = millis(leaseTime.toMillis());
        log.warn(
                "{}: the lease time {} is longer than the session timeout the ZooKeeper server negotiated, {}"
                        + " (the URI asked for {}): the server frees a silent client's locks after {}, so a lease"
                        + " is valid at most {} after ZooKeeper's last answer; it is renewed within that, and a"
                        + " pause, a cut-off or a lease without auto-renewal loses it after {}, not {}; to keep"
                        + " the lease time, raise sessionTimeout in the URI and the server's maxSessionTimeout"
                        + " (at most 20 ticks by default) above it, or lower LockOptions.leaseTime to at most {}",
                backendName,
                lease,
                session,
                millis(requested.toMillis()),
                session,
                session,
                session,
                lease,
                session);
    }

    /** {@code 30s} or {@code 1500ms}, as a URI's sessionTimeout is written. */
    private static String millis(long millis) {
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}
