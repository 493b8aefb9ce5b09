package dev.baton.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This client's etcd leases and the keys it holds on them, as etcd's concurrency session keeps one
 * lease per client: every key of this client with the same lease TTL is attached to one lease, which
 * lives as long as the client and is kept alive in the background. So acquiring costs no lease call
 * (after the first), a crashed client's keys all go when its lease expires, and a renewal extends
 * every grant of a lease with one keep-alive however many there are.
 *
 * <p>Lease time: etcd lease TTLs are whole seconds, so a lock with lease time {@code L} goes on the
 * client's lease of TTL {@code ceil(L)} seconds (one lease per distinct TTL the client uses; the
 * server may raise a TTL to its minimum, 2 s with default Raft timings). The server thus frees a
 * crashed holder's lock at most {@code ceil(L)} after its last keep-alive; within a live client, a
 * grant not renewed within {@code L} itself has its key deleted by a local sweep (every 100 ms), as
 * on every other backend.
 *
 * <p>Keep-alive and loss: one background thread sends a keep-alive for each lease a third of its TTL
 * after the last one, and knows each lease alive until the send time of its last answered keep-alive
 * plus the TTL the server answered. When etcd says the lease is gone (it expired while the client
 * could not reach etcd, or it was revoked), the lease is dead: every grant on it is lost, its waiters
 * are woken (their keys are gone), and the next acquisition grants a new lease. A lease whose
 * keep-alives go unanswered past that time is replaced for new acquisitions; its grants are reported
 * lost by the core when their validity (bounded by that same time, see {@link
 * ClientLease#aliveUntilNanos}) runs out without a renewal.
 *
 * <p>Keys whose deletion failed (etcd unreachable while a waiter gave up) are deleted again in the
 * background until etcd takes the delete, so that a live client leaves no stale queue entry.
 */
final class EtcdSession {
    private static final Logger log = LoggerFactory.getLogger(EtcdSession.class);
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final long TICK_MILLIS = 100;

    private final EtcdCalls calls;
    /** The lease new keys of each TTL go on. */
    private final Map<Long, ClientLease> current = new ConcurrentHashMap<>();
    /** Every lease being kept alive: current ones, and replaced ones that still carry keys. */
    private final Set<ClientLease> kept = ConcurrentHashMap.newKeySet();

    private final ReentrantLock granting = new ReentrantLock();
    private final Set<EtcdHeldKey> held = ConcurrentHashMap.newKeySet();
    /** Keys to delete in the background, with the lease each is on. */
    private final Map<ByteSequence, Orphan> orphans = new ConcurrentHashMap<>();

    private final Set<ByteSequence> orphansInFlight = ConcurrentHashMap.newKeySet();
    private final CopyOnWriteArrayList<Runnable> deathListeners = new CopyOnWriteArrayList<>();
    private final ScheduledThreadPoolExecutor keeper;
    private volatile java.util.function.Consumer<ByteSequence> keyDeleted = key -> {};

    EtcdSession(EtcdCalls calls) {
        this.calls = calls;
        String name = "baton-etcd-keepalive-" + THREADS.incrementAndGet();
        this.keeper = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        });
        keeper.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        keeper.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** etcd's TTL for a lease time: whole seconds, rounded up, at least 1. */
    static long ttlSeconds(Duration leaseTime) {
        long millis = leaseTime.toMillis();
        return Math.max(1, (millis + 999) / 1000);
    }

    /** Called whenever a key deleted in the background is known gone, so that its name may be reused. */
    void onKeyDeleted(java.util.function.Consumer<ByteSequence> listener) {
        keyDeleted = listener;
    }

    /** Called (on the keeper thread) whenever a lease dies, so that waiters look at their keys again. */
    void onLeaseDeath(Runnable listener) {
        deathListeners.add(listener);
    }

    /**
     * The lease a new key with {@code leaseTime} goes on: the client's current one for that TTL, or a
     * new one (one round trip) when there is none yet or the current one is dead or overdue.
     */
    ClientLease lease(String subject, Duration leaseTime, long deadline) throws InterruptedException {
        long ttl = ttlSeconds(leaseTime);
        ClientLease lease = current.get(ttl);
        if (lease != null && lease.aliveAt(System.nanoTime())) {
            return lease;
        }
        granting.lock();
        try {
            lease = current.get(ttl);
            if (lease != null && lease.aliveAt(System.nanoTime())) {
                return lease;
            }
            long sentAt = System.nanoTime();
            LeaseGrantResponse granted = calls.callAbout(subject, "granting an etcd lease", deadline, () -> calls.client
                    .getLeaseClient()
                    .grant(ttl));
            ClientLease fresh = new ClientLease(granted.getID(), ttl, granted.getTTL(), sentAt);
            if (granted.getTTL() > ttl) {
                log.info(
                        "{}: etcd raised the lease TTL from {} s to its minimum of {} s: a crashed holder's locks"
                                + " are freed after {} s",
                        calls.backendName(),
                        ttl,
                        granted.getTTL(),
                        granted.getTTL());
            }
            kept.add(fresh);
            current.put(ttl, fresh);
            return fresh;
        } finally {
            granting.unlock();
        }
    }

    /** Marks {@code lease} dead because etcd no longer has it. */
    void leaseGone(ClientLease lease, String why) {
        if (lease.dead) {
            return;
        }
        lease.deathReason = why;
        lease.dead = true;
        current.remove(lease.requestedTtl, lease);
        kept.remove(lease);
        log.warn(
                "{}: lease {} is gone ({}); its {} held lock(s) are reported lost",
                calls.backendName(),
                Long.toHexString(lease.id),
                why,
                held.stream().filter(h -> h.lease == lease).count());
        deathListeners.forEach(Runnable::run);
    }

    /**
     * Has etcd extend {@code lease} now (one round trip) and returns when that request was sent
     * ({@link System#nanoTime()}): the lease lives at least its TTL from then.
     *
     * @throws LeaseGoneException if etcd no longer has the lease
     */
    long keepAlive(String subject, ClientLease lease, long deadline) throws InterruptedException {
        if (lease.dead) {
            throw new LeaseGoneException(lease.deathReason);
        }
        long sentAt = System.nanoTime();
        try {
            LeaseKeepAliveResponse answer =
                    calls.callAbout(subject, "keeping the etcd lease alive", deadline, () -> calls.client
                            .getLeaseClient()
                            .keepAliveOnce(lease.id));
            lease.answered(sentAt, answer.getTTL());
            return sentAt;
        } catch (dev.baton.LockUnavailableException e) {
            if (e.getCause() != null && EtcdCalls.isLeaseNotFound(e.getCause())) {
                leaseGone(lease, "etcd says it expired or was revoked");
                throw new LeaseGoneException(lease.deathReason);
            }
            throw e;
        }
    }

    /** Registers a granted key; its lease time runs from now. */
    EtcdHeldKey hold(
            String lockName, int permits, ByteSequence key, long revision, ClientLease lease, Duration leaseTime) {
        EtcdHeldKey granted =
                new EtcdHeldKey(lockName, permits, calls, key, revision, lease, leaseTime, System.nanoTime());
        held.add(granted);
        return granted;
    }

    /** Forgets a key being released: its lease time no longer runs out, its deletion is the caller's. */
    void forget(EtcdHeldKey key) {
        key.release();
        held.remove(key);
    }

    int heldCount() {
        return held.size();
    }

    /**
     * Deletes {@code key} in the background, again and again until etcd takes a delete sent after
     * {@code settleNanos} from now; then {@code lease} (if known) counts one key less. A request whose
     * answer was lost may still be applied for a while after the caller gave up on it (it was already
     * proposed to the cluster): a key it creates then is deleted too, as long as the delete comes
     * after that time.
     */
    void deleteInBackground(String lockName, ByteSequence key, ClientLease lease, long settleNanos) {
        orphans.put(key, new Orphan(lockName, lease, System.nanoTime() + settleNanos));
    }

    /** Whether {@code key} waits for a deletion in the background (which frees its name when done). */
    boolean deletingInBackground(ByteSequence key) {
        return orphans.containsKey(key);
    }

    private record Orphan(String lockName, ClientLease lease, long notBefore) {}

    private void tick() {
        long now = System.nanoTime();
        for (ClientLease lease : kept) {
            if (!lease.dead) {
                keepAliveInBackground(lease, now);
            }
            if (lease.keys.get() == 0 && current.get(lease.requestedTtl) != lease) {
                kept.remove(lease);
                calls.client.getLeaseClient().revoke(lease.id);
            }
        }
        for (EtcdHeldKey key : held) {
            if (key.expireIfDue(now)) {
                held.remove(key);
                log.info("{}: lease time {} ran out without renewal; deleting its key", key.subject(), key.leaseTime);
                deleteInBackground(key.lockName, key.key, key.lease, 0);
            }
        }
        for (Map.Entry<ByteSequence, Orphan> orphan : orphans.entrySet()) {
            ByteSequence key = orphan.getKey();
            if (calls.isClosed() || !orphansInFlight.add(key)) {
                continue;
            }
            Orphan pending = orphan.getValue();
            boolean settled = now - pending.notBefore() >= 0;
            calls.client.getKVClient().delete(key).whenComplete((deleted, failure) -> {
                orphansInFlight.remove(key);
                if (failure == null && settled && orphans.remove(key, pending)) {
                    if (pending.lease() != null) {
                        pending.lease().keys.decrementAndGet();
                    }
                    keyDeleted.accept(key);
                }
            });
        }
    }

    private void keepAliveInBackground(ClientLease lease, long now) {
        long sinceSent = now - lease.lastSentNanos;
        boolean inFlight = lease.inFlightSince != 0
                && now - lease.inFlightSince < calls.operationTimeout().toNanos();
        if (inFlight || sinceSent < lease.ttlNanos() / 3) {
            return;
        }
        lease.lastSentNanos = now;
        lease.inFlightSince = now;
        calls.client.getLeaseClient().keepAliveOnce(lease.id).whenComplete((answer, failure) -> {
            lease.inFlightSince = 0;
            if (failure == null) {
                lease.answered(now, answer.getTTL());
            } else if (EtcdCalls.isLeaseNotFound(failure)) {
                leaseGone(lease, "etcd says it expired or was revoked");
            } else if (System.nanoTime() - lease.aliveUntilNanos() > 0 && !lease.overdueLogged) {
                lease.overdueLogged = true;
                log.warn(
                        "{}: could not keep lease {} alive for its TTL of {} s ({}); locks on it are reported lost as"
                                + " their validity runs out",
                        calls.backendName(),
                        Long.toHexString(lease.id),
                        lease.ttlSeconds,
                        calls.reason(EtcdCalls.unwrap(failure)));
            }
        });
    }

    /** Stops the keep-alives and revokes every lease, which deletes every key left (bounded, best effort). */
    void close() {
        keeper.shutdownNow();
        for (ClientLease lease : kept) {
            try {
                calls.client
                        .getLeaseClient()
                        .revoke(lease.id)
                        .get(calls.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                log.debug("{}: revoking lease {} failed: {}", calls.backendName(), lease.id, e.toString());
            }
        }
        kept.clear();
        current.clear();
    }

    /** Thrown when etcd no longer has a lease: every key on it is gone. */
    static final class LeaseGoneException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LeaseGoneException(String why) {
            super(why, null, false, false);
        }
    }

    /** One etcd lease of this client. */
    static final class ClientLease {
        final long id;
        /** The TTL the server granted, in seconds (at least the one asked for). */
        final long ttlSeconds;
        /** The TTL asked for: the key of {@link #current}. */
        final long requestedTtl;
        /** Keys on this lease that wait or hold. */
        final AtomicInteger keys = new AtomicInteger();

        private final AtomicLong aliveUntil;
        volatile boolean dead;
        volatile String deathReason;
        volatile long lastSentNanos;
        volatile long inFlightSince;
        volatile boolean overdueLogged;

        ClientLease(long id, long requestedTtl, long ttlSeconds, long grantSentAt) {
            this.id = id;
            this.ttlSeconds = ttlSeconds;
            this.requestedTtl = requestedTtl;
            this.aliveUntil = new AtomicLong(grantSentAt + TimeUnit.SECONDS.toNanos(ttlSeconds));
            this.lastSentNanos = grantSentAt;
        }

        long ttlNanos() {
            return TimeUnit.SECONDS.toNanos(ttlSeconds);
        }

        /**
         * Until when ({@link System#nanoTime()}) etcd keeps this lease for sure: the send time of the
         * last answered keep-alive (or of the grant) plus the TTL answered. A grant on this lease is
         * never valid for longer.
         */
        long aliveUntilNanos() {
            return aliveUntil.get();
        }

        boolean aliveAt(long now) {
            return !dead && aliveUntil.get() - now > 0;
        }

        void answered(long sentAt, long ttl) {
            long until = sentAt + TimeUnit.SECONDS.toNanos(ttl);
            aliveUntil.accumulateAndGet(until, (a, b) -> a - b >= 0 ? a : b);
            overdueLogged = false;
        }
    }
}
