package dev.baton.etcd;

import dev.baton.LockUnavailableException;
import dev.baton.etcd.EtcdSession.ClientLease;
import dev.baton.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The wire protocol of the lock queues (with {@link EtcdSession} for the leases): every request
 * this backend sends about a lock's keys is here.
 *
 * <ul>
 *   <li><b>Enter</b> ({@link #enter}): one transaction. If the attempt's key {@code
 *       <prefix><client tag>-<slot>} ({@link EtcdKeySlots}) does not exist yet, put it with the
 *       client's lease and its kind and owner id as value, and list the queue
 *       (every key under the prefix, by create revision); else (a retry after a lost answer) read it
 *       and list the queue. The key's create revision orders the queue and is the fencing token:
 *       etcd's revisions only grow, so a later grant always has a larger token.
 *   <li><b>Holding</b>: an exclusive key ({@code mutex}, {@code write}) holds when it is first in the
 *       queue; a {@code read} key holds when no exclusive key is ahead of it. Keys only ever join at
 *       the end, so a key that holds keeps holding until it is deleted.
 *   <li><b>Waiting</b> ({@link EtcdQueueTurn}, without a thread): the waiter watches the deletes of the nearest key that
 *       blocks it and of the one before it, and no other key (each watch live from its creation,
 *       with a read of the key if anything was written since the listing: see {@link
 *       EtcdQueueWatch}), as the ZooKeeper backend does. When the nearest goes and it was the last
 *       blocker (the only one, or the second of two and the first has gone), the waiter holds with no
 *       further request: nothing joins ahead of it, and its lease was alive. When the one before
 *       goes and more remain, it lists the keys up to its own at once, while the nearest still
 *       blocks, so that its hand-off needs no listing either. A listing (one read) also proves its
 *       own key still exists. A release thus wakes at most two waiters, never the queue.
 *   <li><b>Leaving</b>: release, a timeout, an interrupt or a failure deletes the key (one request);
 *       if etcd cannot be reached, the session deletes it in the background until it can.
 *   <li><b>Renewing</b> ({@link #checkHeld}): one transaction per batch compares each held key's
 *       create revision with its token (no key: revision 0), and on a mismatch reads each key to
 *       tell which ones are gone. The lease itself is extended by the session's keep-alive.
 * </ul>
 *
 * <p>A waiter whose lease dies (its key went with it) fails with {@link LockUnavailableException};
 * so does one whose own key is missing when it lists the queue.
 */
final class EtcdLockQueue {
    private final EtcdCalls calls;
    private final EtcdSession session;
    private final EtcdKeys keys;
    private final Set<EtcdQueueWatch> waiters = ConcurrentHashMap.newKeySet();
    private final EtcdKeySlots slots;

    EtcdLockQueue(EtcdCalls calls, EtcdSession session, EtcdKeys keys) {
        this.calls = calls;
        this.session = session;
        this.keys = keys;
        this.slots = new EtcdKeySlots(keys);
        session.onLeaseDeath(this::wakeWaiters);
        session.onKeyDeleted(slots::deleted);
    }

    /** The key the attempt {@code ownerId} claimed and that is not known deleted yet; null if none. */
    ByteSequence keyOf(String ownerId) {
        return slots.keyOf(ownerId);
    }

    /** A queue entry: its key, its create revision, and whether it is a read key. */
    record Entry(ByteSequence key, long revision, boolean read, long lease, String owner) {}

    /** The attempt's key as created (or found), and the queue listed in the same transaction. */
    record Entered(ByteSequence key, long revision, ClientLease lease, List<Entry> queue, long listedAt) {}

    /** Close or a lost lease: every waiter looks at its queue again. */
    void wakeWaiters() {
        waiters.forEach(EtcdQueueWatch::wake);
    }

    /** A waiter's watches, woken by {@link #wakeWaiters} until {@link #untrack}ed. */
    void track(EtcdQueueWatch watch) {
        waiters.add(watch);
    }

    void untrack(EtcdQueueWatch watch) {
        waiters.remove(watch);
    }

    /** The client's key names, which semaphores share (a name is freed where its deletion is known). */
    EtcdKeySlots slots() {
        return slots;
    }

    /** Creates the attempt's key, unless an earlier try of the same attempt did, and lists the queue. */
    Entered enter(LockRequest request, long deadline) throws InterruptedException {
        String name = request.name();
        // A fresh name for every call: a key of an earlier call of the same attempt may still be
        // waiting for its deletion in the background.
        ByteSequence own = slots.claim(name, request.ownerId());
        ByteSequence prefix = keys.prefix(name);
        while (true) {
            ClientLease lease = session.lease(calls.describe(name), request.leaseTime(), deadline);
            PutOption put = PutOption.builder().withLeaseId(lease.id).build();
            TxnResponse answer;
            try {
                answer = calls.call(name, "taking the lock", deadline, () -> calls.client
                        .getKVClient()
                        .txn()
                        .If(new Cmp(own, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                        .Then(
                                Op.put(own, EtcdKeys.value(request.kind(), request.ownerId(), request.holder()), put),
                                Op.get(prefix, queue(0)))
                        .Else(Op.get(own, GetOption.DEFAULT), Op.get(prefix, queue(0)))
                        .commit());
            } catch (LockUnavailableException e) {
                if (e.getCause() != null && EtcdCalls.isLeaseNotFound(e.getCause())) {
                    session.leaseGone(lease, "etcd says it expired or was revoked");
                    continue; // the put was refused: take a new lease
                }
                throw e;
            }
            List<GetResponse> reads = answer.getGetResponses();
            long revision;
            if (answer.isSucceeded()) {
                revision = answer.getHeader().getRevision();
            } else {
                List<KeyValue> found = reads.get(0).getKvs();
                if (found.isEmpty()) {
                    continue; // deleted between the compare and now: cannot happen in one transaction
                }
                revision = found.get(0).getCreateRevision();
            }
            lease.keys.incrementAndGet();
            GetResponse listing = reads.get(reads.size() - 1);
            return new Entered(
                    own, revision, lease, entries(listing), answer.getHeader().getRevision());
        }
    }

    /**
     * Which of {@code entries} no longer exist now, in one linearizable read (a transaction of one
     * get per key when there are two). The same key only, not a later one of the same name: a client
     * reuses its key names.
     */
    List<Entry> missing(String subject, List<Entry> entries) throws InterruptedException {
        if (entries.isEmpty()) {
            return List.of();
        }
        GetOption keysOnly = GetOption.builder().withKeysOnly(true).build();
        Op[] reads =
                entries.stream().map(entry -> Op.get(entry.key(), keysOnly)).toArray(Op[]::new);
        TxnResponse found = calls.callAbout(
                subject,
                "reading the queue",
                calls.deadline(),
                () -> calls.client.getKVClient().txn().Then(reads).commit());
        List<Entry> gone = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            List<KeyValue> kvs = found.getGetResponses().get(i).getKvs();
            if (kvs.isEmpty()
                    || kvs.get(0).getCreateRevision() != entries.get(i).revision()) {
                gone.add(entries.get(i));
            }
        }
        return gone;
    }

    void checkLease(String subject, ClientLease lease) {
        if (lease.dead) {
            throw new LockUnavailableException(subject + ": the client's etcd lease ended while waiting ("
                    + lease.deathReason + "), and with it the place in the queue; retry");
        }
    }

    /**
     * Deletes a key this client created; true if it was still there.
     *
     * @param subject how failure messages name the lock or semaphore ({@link EtcdCalls#describe})
     */
    boolean delete(String name, String subject, ByteSequence key, ClientLease lease, long deadline)
            throws InterruptedException {
        DeleteResponse deleted;
        try {
            deleted = calls.callAbout(subject, "deleting the attempt's key", deadline, () -> calls.client
                    .getKVClient()
                    .delete(key));
        } catch (LockUnavailableException | InterruptedException e) {
            session.deleteInBackground(name, key, lease, 0);
            throw e;
        }
        lease.keys.decrementAndGet();
        if (!session.deletingInBackground(key)) {
            // (Else the background deletion frees the name once it is done: a later key of the same
            // name must not be there before it runs, or it would delete that one.)
            slots.deleted(key);
        }
        return deleted.getDeleted() > 0;
    }

    /**
     * Deletes {@code key} if it still has create revision {@code revision} (a forced release of
     * another client's grant); true if it did.
     */
    boolean deleteIfCreatedAt(String name, ByteSequence key, long revision) throws InterruptedException {
        return calls.call(name, "deleting the holder's key", calls.deadline(), () -> calls.client
                        .getKVClient()
                        .txn()
                        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                        .Then(Op.delete(key, io.etcd.jetcd.options.DeleteOption.DEFAULT))
                        .commit())
                .isSucceeded();
    }

    /**
     * Which of {@code held} (all of one client, up to 100) still exist with their create revision, in
     * one transaction. Sent asynchronously so that the caller can keep the lease alive meanwhile.
     */
    CompletableFuture<TxnResponse> checkHeld(List<EtcdHeldKey> held) {
        Cmp[] same = new Cmp[held.size()];
        Op[] reads = new Op[held.size()];
        for (int i = 0; i < held.size(); i++) {
            EtcdHeldKey key = held.get(i);
            same[i] = new Cmp(key.key, Cmp.Op.EQUAL, CmpTarget.createRevision(key.revision));
            reads[i] = Op.get(key.key, GetOption.builder().withKeysOnly(true).build());
        }
        return calls.client.getKVClient().txn().If(same).Then().Else(reads).commit();
    }

    /** Whether {@code key} still holds its create revision, as {@code answer} to {@link #checkHeld} says. */
    static boolean stillHeld(TxnResponse answer, int index, EtcdHeldKey key) {
        if (answer.isSucceeded()) {
            return true;
        }
        List<KeyValue> found = answer.getGetResponses().get(index).getKvs();
        return !found.isEmpty() && found.get(0).getCreateRevision() == key.revision;
    }

    /** Every key under a prefix by create revision, up to {@code maxRevision} (0: all). */
    static GetOption queue(long maxRevision) {
        GetOption.Builder option = GetOption.builder()
                .isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.ASCEND);
        if (maxRevision > 0) {
            option.withMaxCreateRevision(maxRevision);
        }
        return option.build();
    }

    static List<Entry> entries(GetResponse listing) {
        List<Entry> entries = new ArrayList<>(listing.getKvs().size());
        for (KeyValue kv : listing.getKvs()) {
            entries.add(new Entry(
                    kv.getKey(),
                    kv.getCreateRevision(),
                    EtcdKeys.isRead(kv.getValue()),
                    kv.getLease(),
                    EtcdKeys.ownerOf(kv.getKey(), kv.getValue())));
        }
        return entries;
    }
}
