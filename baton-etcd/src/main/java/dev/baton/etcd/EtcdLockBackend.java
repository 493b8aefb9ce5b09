package dev.baton.etcd;

import dev.baton.Holder;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.LockUnavailableException;
import dev.baton.etcd.EtcdSession.ClientLease;
import dev.baton.etcd.EtcdSession.LeaseGoneException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.Waiting;
import io.etcd.jetcd.kv.TxnResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks as queues of lease-bound keys ordered by create revision. This class is the SPI over these
 * parts: the queue protocol ({@link EtcdLockQueue}) and the waiting in it without a thread ({@link
 * EtcdLine}, {@link EtcdQueueTurn}, {@link EtcdQueueWatch}), the client's leases and held keys
 * ({@link EtcdSession}), and the bounded etcd calls ({@link EtcdCalls}).
 *
 * <p>Guarantees: an exclusive grant is the first key of its lock's queue, a read grant has no
 * exclusive key ahead of it; its fencing token is its key's create revision, strictly increasing
 * across the grants of a lock. A semaphore's permit is a key of the semaphore's own queue that
 * fewer than its count of keys are ahead of ({@link EtcdPermits}), with the same token, lease,
 * renewal and release. Uncontended, taking a lock or a permit is one transaction and releasing it
 * one delete. A grant lives while the client's lease does and at most its lease time without renewal;
 * its validity never exceeds what the lease's last answered keep-alive guarantees.
 *
 * <p>Failure behaviour: every call is bounded by the operation timeout and reports etcd unreachable,
 * without quorum, refusing the credentials or the permission as {@link LockUnavailableException}
 * naming the lock, the backend and the fix. A waiter that times out, is interrupted, is cancelled or
 * fails deletes its key when it leaves the line (in the background if etcd cannot be reached then). A grant whose lease
 * etcd no longer has (expired while unreachable, or revoked), or whose key was deleted by someone
 * else, is reported lost at its next renewal; one whose keep-alives go unanswered is reported lost by
 * the core when its validity runs out.
 */
final class EtcdLockBackend implements LockBackend {
    private static final Logger log = LoggerFactory.getLogger(EtcdLockBackend.class);
    /** Compares per renewal transaction: below etcd's default limit of 128 operations per transaction. */
    private static final int RENEWAL_BATCH = 100;

    private final EtcdCalls calls;
    private final EtcdSession session;
    private final EtcdLockQueue queue;
    private final EtcdPermits permits;
    private final EtcdKeys keys;
    private final EtcdLockListing listing;
    private final EtcdLine line;
    private final Waiting waiting;

    EtcdLockBackend(EtcdUri uri, EtcdCalls calls) {
        this.calls = calls;
        this.keys = new EtcdKeys(uri.root());
        this.session = new EtcdSession(calls);
        this.queue = new EtcdLockQueue(calls, session, keys);
        this.permits = new EtcdPermits(calls, session, keys, queue, uri.namespace());
        this.listing = new EtcdLockListing(calls, keys);
        this.line = new EtcdLine(calls, session, queue, permits, keys);
        this.waiting = Waiting.queue(line);
    }

    @Override
    public String name() {
        return calls.backendName();
    }

    /**
     * Waiters queue in the server and hold no thread: see {@link EtcdLine}. The same line serves
     * every kind, a semaphore's permits included.
     */
    @Override
    public Waiting waiting(LockKind kind) {
        return waiting;
    }

    /** Semaphores: the same queue of lease-bound keys under a prefix of their own ({@link EtcdPermits}). */
    @Override
    public boolean supportsPermits() {
        return true;
    }

    /** Puts the key and lists the queue in one transaction, and deletes the key unless it holds. */
    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        return line.tryAcquire(request);
    }

    /**
     * A key lives on the client's etcd lease whose TTL is its lease time in whole seconds, and a
     * keep-alive renews that lease for its TTL: an extension is at most that many seconds.
     */
    @Override
    public void checkExtension(String lock, Duration leaseTime, Duration extension) {
        long ttl = EtcdSession.ttlSeconds(leaseTime);
        if (extension.compareTo(Duration.ofSeconds(ttl)) > 0) {
            throw new LockConfigurationException("Baton lock '" + lock + "' on " + name() + ": cannot extend by "
                    + extension + "; its key lives on an etcd lease of " + ttl + " s (the lease time it was"
                    + " acquired with, in whole seconds), which a keep-alive renews for that long: extend by at"
                    + " most " + ttl + "s, or acquire with a longer LockOptions.leaseTime");
        }
    }

    /** A batch of one: see {@link #renewAll}. */
    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        return renewAll(List.of(grant), leaseTime).get(0);
    }

    @Override
    public int renewalBatchSize() {
        return RENEWAL_BATCH;
    }

    /**
     * One keep-alive per lease in the batch (usually one) and, at the same time, one transaction that
     * checks every key of the batch still exists with its token: two requests in flight however many
     * grants. A grant counts as renewed for the full lease time from the call: the keep-alive was sent
     * after the core's call began and the lease's TTL is at least the lease time.
     */
    @Override
    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        List<Optional<Grant>> answers = new ArrayList<>(grants.size());
        List<EtcdHeldKey> valid = new ArrayList<>();
        for (Grant grant : grants) {
            answers.add(Optional.empty());
            EtcdHeldKey key = (EtcdHeldKey) grant.backendState();
            if (key != null && key.valid()) {
                valid.add(key);
            }
        }
        if (valid.isEmpty()) {
            return answers;
        }
        String subject = valid.get(0).subject();
        try {
            CompletableFuture<TxnResponse> check = queue.checkHeld(valid);
            long deadline = calls.deadline();
            Map<ClientLease, Long> sentAt = new IdentityHashMap<>();
            for (EtcdHeldKey key : valid) {
                if (!sentAt.containsKey(key.lease)) {
                    try {
                        sentAt.put(key.lease, session.keepAlive(subject, key.lease, deadline));
                    } catch (LeaseGoneException gone) {
                        sentAt.put(key.lease, null);
                    }
                }
            }
            boolean[] first = {true};
            TxnResponse checked = calls.callAbout(subject, "renewing", deadline, () -> {
                if (first[0]) {
                    first[0] = false;
                    return check;
                }
                return queue.checkHeld(valid);
            });
            Instant expiresAt = Instant.now().plus(leaseTime);
            for (int i = 0, v = 0; i < grants.size(); i++) {
                EtcdHeldKey key = (EtcdHeldKey) grants.get(i).backendState();
                if (key == null || !valid.contains(key)) {
                    continue;
                }
                boolean present = EtcdLockQueue.stillHeld(checked, v++, key);
                Long sent = sentAt.get(key.lease);
                if (!present) {
                    key.deletedElsewhere = true;
                    log.warn("{}: its key was deleted by someone else; the lease is lost", key.subject());
                }
                if (present && sent != null && key.valid() && key.extend(sent + leaseTime.toNanos())) {
                    answers.set(i, Optional.of(grants.get(i).withExpiresAt(expiresAt)));
                }
            }
            return answers;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(subject + ": interrupted while renewing", e);
        }
    }

    @Override
    public boolean release(Grant grant) {
        EtcdHeldKey key = (EtcdHeldKey) grant.backendState();
        if (key == null) {
            abandon(LockRequest.builder(
                            grant.name(),
                            grant.ownerId(),
                            grant.mode() == LockMode.EXCLUSIVE ? LockKind.MUTEX : LockKind.READ,
                            Duration.ofSeconds(1))
                    .build());
            return false;
        }
        boolean wasValid = key.valid();
        session.forget(key);
        try {
            return queue.delete(grant.name(), key.subject(), key.key, key.lease, calls.deadline()) && wasValid;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(
                    key.subject() + ": interrupted while releasing; the key is deleted in the" + " background", e);
        }
    }

    /**
     * Deletes the key an attempt may have created, in the background: the attempt's transaction may
     * still be applied after its caller gave up, so the deletes go on until one is sent an operation
     * timeout later. Returns at once; harmless when the attempt created nothing.
     */
    @Override
    public void abandon(LockRequest request) {
        line.abandon(request);
    }

    /** Lock {@code name} (not a semaphore of that name): see {@link EtcdLockListing}. */
    @Override
    public Optional<LockInfo> inspect(String name) {
        try {
            return listing.find(name, false).stream()
                    .map(EtcdLockListing.Found::info)
                    .findFirst();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(calls.describe(name) + ": interrupted while inspecting", e);
        }
    }

    /**
     * Ranges over the keys under {@code <root>/<encoded prefix>} and {@code <root>/%sem/<encoded
     * prefix>} in pages, at one revision, and reads the holders' lease TTLs: see {@link
     * EtcdLockListing}. Waiters are the keys behind the holders of each queue.
     */
    @Override
    public List<LockInfo> list(String prefix) {
        try {
            return listing.list(prefix);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(calls.describe(prefix) + ": interrupted while listing locks", e);
        }
    }

    @Override
    public String listingMethod() {
        return listing.method();
    }

    /**
     * Deletes each holder's key if it still has the holder's create revision (one transaction per
     * key, so no other grant is touched, not even a later key of the same name). The holder's etcd
     * lease is left alone: other grants of its client live on it. Deleting the key wakes the waiters
     * watching it, as a release does, and the next key of the name gets a higher create revision, so
     * a higher token. The broken holder learns it at its next renewal, whose transaction checks that
     * each held key still has its create revision ({@link EtcdLockQueue#checkHeld}); its own release
     * later deletes a key that is gone.
     */
    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        try {
            List<LockInfo> broken = new ArrayList<>();
            for (EtcdLockListing.Found found : listing.find(name, true)) {
                List<Holder> hit = new ArrayList<>();
                for (EtcdLockListing.HeldEntry entry : found.holders()) {
                    if ((ownerId == null || entry.holder().ownerId().equals(ownerId))
                            && queue.deleteIfCreatedAt(
                                    name, entry.key(), entry.holder().fencingToken())) {
                        hit.add(entry.holder());
                    }
                }
                if (!hit.isEmpty()) {
                    broken.add(LockInfo.of(name, found.kind(), hit)
                            .withPermits(found.permits())
                            .withWaiters(OptionalInt.of(found.waiters())));
                }
            }
            return broken;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(calls.describe(name) + ": interrupted while breaking the lock", e);
        }
    }

    /** How many keys this client holds as grants, as far as it knows (for tests). */
    int heldKeyCount() {
        return session.heldCount();
    }

    @Override
    public void close() {
        if (calls.isClosed()) {
            return;
        }
        // Closed before the waiters wake, so that each one either sees the flag or is woken.
        calls.markClosed();
        queue.wakeWaiters();
        session.close();
        calls.client.close();
    }
}
