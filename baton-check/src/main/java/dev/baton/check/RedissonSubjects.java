package dev.baton.check;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@code RLock} and {@code RFencedLock} as check subjects, on a single Redis server or
 * behind Sentinel, set up as Redisson documents them: {@code tryLock(wait)} without a lease time, so
 * that the lock watchdog renews the hold; the watchdog's timeout is the check's lease time (its
 * default, 30 s, would outlast every fault the check scales to the lease).
 *
 * <p>What the holder learns: Redisson has no loss callback, so a holder knows it lost the lock only by
 * asking {@code isHeldByCurrentThread()}, which this subject does when the hold ends. An
 * {@code RLock} has no fencing token (0); an {@code RFencedLock} hands out the token Redis increments
 * on every grant.
 */
final class RedissonSubjects {
    private RedissonSubjects() {}

    /**
     * A subject for {@code uri}: {@code redis://host:port} or {@code redis-sentinel://host:port[?...]#master}
     * (Baton's URIs, as the Redis targets hand them out).
     */
    static ClientSubject create(String uri, Duration leaseTime, boolean fenced) {
        Config config = new Config();
        config.setLockWatchdogTimeout(leaseTime.toMillis());
        if (uri.startsWith("redis-sentinel://")) {
            URI parsed = URI.create(uri);
            config.useSentinelServers()
                    .setMasterName(parsed.getFragment())
                    .addSentinelAddress("redis://" + parsed.getHost() + ":" + parsed.getPort())
                    // one Sentinel here: Redisson's check that it knows others would refuse to start
                    .setCheckSentinelsList(false);
        } else {
            config.useSingleServer().setAddress(uri);
        }
        RedissonClient redisson = Redisson.create(config);
        return new ClientSubject() {
            @Override
            public Optional<Hold> acquire(String lock, Duration timeout, Runnable onLost) {
                String name = "redisson:" + lock;
                try {
                    if (fenced) {
                        RFencedLock fencedLock = redisson.getFencedLock(name);
                        Long token = fencedLock.tryLockAndGetToken(timeout.toMillis(), TimeUnit.MILLISECONDS);
                        return token == null ? Optional.empty() : Optional.of(hold(fencedLock, token));
                    }
                    RLock rLock = redisson.getLock(name);
                    return rLock.tryLock(timeout.toMillis(), TimeUnit.MILLISECONDS)
                            ? Optional.of(hold(rLock, 0))
                            : Optional.empty();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                }
            }

            @Override
            public void close() {
                redisson.shutdown(0, 2, TimeUnit.SECONDS);
            }
        };
    }

    private static ClientSubject.Hold hold(RLock lock, long token) {
        return new ClientSubject.Hold() {
            /** Once told, always told; a "still held" answer is not kept (the client asks again at release). */
            private boolean lost;

            @Override
            public long token() {
                return token;
            }

            /**
             * Asks Redis whether this thread still holds the lock, until it says no. A failed question
             * counts as told: the holder saw an error and cannot believe it still holds the lock.
             */
            @Override
            public boolean knownLost() {
                if (!lost) {
                    try {
                        lost = !lock.isHeldByCurrentThread();
                    } catch (RuntimeException e) {
                        lost = true;
                    }
                }
                return lost;
            }

            @Override
            public void release() {
                try {
                    lock.unlock();
                } catch (RuntimeException e) {
                    // IllegalMonitorStateException once the lock expired, or Redis unreachable: it lapses
                }
            }
        };
    }
}
