package dev.baton.etcd;

import dev.baton.LockConfigurationException;
import dev.baton.LockKind;
import dev.baton.LockUnavailableException;
import dev.baton.etcd.EtcdLockQueue.Entered;
import dev.baton.etcd.EtcdLockQueue.Entry;
import dev.baton.etcd.EtcdSession.ClientLease;
import dev.baton.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The wire protocol of semaphores: every request this backend sends about a semaphore's keys is here
 * (the leases are {@link EtcdSession}'s, renewal and release are the locks' own, see {@link
 * EtcdLockQueue#checkHeld} and {@link EtcdLockQueue#delete}). A semaphore of {@code N} permits is
 * the lock queue with another rule: a key holds while fewer than {@code N} keys are ahead of it.
 *
 * <ul>
 *   <li><b>Keys</b> ({@link EtcdKeys}): the permits are the prefix {@code <root>/%sem/<encoded
 *       name>/}, one key per attempt ({@code <client tag>-<slot>}, value {@code permit <owner id>})
 *       on the client's lease; the count is the key {@code <root>/%sem/<encoded name>}, value the
 *       decimal count, without a lease: it belongs to the name, not to a holder, so that a client
 *       that asks for another count is refused even while nobody holds a permit.
 *   <li><b>Enter</b> ({@link #enter}): one transaction, as for a lock, with one more compare: if the
 *       attempt's key does not exist and the count key holds this request's count, put the key and
 *       list the permits by create revision; else read the key, the count and the permits. So a
 *       request with another count never puts a key: it fails with {@link
 *       LockConfigurationException} naming both counts. The first request of a name finds no count
 *       and records its own ("put if absent", one more round trip, once per name), then enters.
 *   <li><b>Holding</b>: a key holds while fewer than {@code N} keys with a lower create revision
 *       exist. Keys only join at the end, so a key that holds keeps holding; its create revision is
 *       the fencing token, which only grows.
 *   <li><b>Waiting</b> ({@link #turn}, without a thread): the waiter watches the deletes of the {@code N} keys
 *       nearest ahead of it that it does not know gone, and of no other key. While those {@code N}
 *       exist it cannot hold, whatever happens further ahead; when one goes, the window moves one
 *       key further ahead (one new watch), and when fewer than {@code N} keys it knows of remain
 *       ahead, it holds with no further request (its lease was alive, so its key was there). Why not
 *       watch only the key {@code N} places ahead: permits are released in any order, and the
 *       release of a key nearer than that one would free a permit without telling the waiter it
 *       falls to (the next one in line watches a key further ahead). A release wakes at most the {@code N} waiters whose window holds the key, never
 *       the whole queue, and none of them lists the queue again. Watches start "now" (see {@link
 *       EtcdQueueWatch}): once the window's watches are live, the keys whose watch started after
 *       the waiter's listing are read in one transaction, so that a delete in between is not missed.
 *   <li><b>Leaving, renewing, releasing</b>: as for a lock (a permit key is just a key on the
 *       client's lease), so one renewal batch may mix lock and permit grants.
 * </ul>
 */
final class EtcdPermits {
    private final EtcdCalls calls;
    private final EtcdSession session;
    private final EtcdKeys keys;
    private final EtcdLockQueue queue;
    /** The URI's namespace, for the count key as {@code etcdctl} names it in messages. */
    private final String namespace;

    EtcdPermits(EtcdCalls calls, EtcdSession session, EtcdKeys keys, EtcdLockQueue queue, String namespace) {
        this.calls = calls;
        this.session = session;
        this.keys = keys;
        this.queue = queue;
        this.namespace = namespace;
    }

    /**
     * Creates the attempt's key if the recorded count is the request's (recording it on first use),
     * unless an earlier try of the same attempt did, and lists the permits.
     *
     * @throws LockConfigurationException if etcd records another count for the name
     */
    Entered enter(LockRequest request, long deadline) throws InterruptedException {
        String name = request.name();
        String subject = calls.describe(request);
        String prefixText = keys.permitPrefixText(name);
        // A fresh name for every call, as for locks (EtcdKeySlots).
        ByteSequence own = queue.slots().claimUnder(prefixText, request.ownerId());
        ByteSequence prefix = bytes(prefixText);
        ByteSequence countKey = bytes(keys.permitCountText(name));
        ByteSequence count = bytes(Integer.toString(request.permits()));
        ByteSequence value = EtcdKeys.value(LockKind.PERMIT, request.ownerId(), request.holder());
        while (true) {
            ClientLease lease = session.lease(subject, request.leaseTime(), deadline);
            PutOption put = PutOption.builder().withLeaseId(lease.id).build();
            TxnResponse answer;
            try {
                answer = calls.callAbout(subject, "taking a permit", deadline, () -> calls.client
                        .getKVClient()
                        .txn()
                        .If(
                                new Cmp(own, Cmp.Op.EQUAL, CmpTarget.createRevision(0)),
                                new Cmp(countKey, Cmp.Op.EQUAL, CmpTarget.value(count)))
                        .Then(Op.put(own, value, put), Op.get(prefix, EtcdLockQueue.queue(0)))
                        .Else(
                                Op.get(own, GetOption.DEFAULT),
                                Op.get(countKey, GetOption.DEFAULT),
                                Op.get(prefix, EtcdLockQueue.queue(0)))
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
            } else if (!reads.get(0).getKvs().isEmpty()) {
                // An earlier try of this call created the key (its answer was lost): the count matched then.
                revision = reads.get(0).getKvs().get(0).getCreateRevision();
            } else if (reads.get(1).getKvs().isEmpty()) {
                recordCount(subject, countKey, count, deadline);
                continue;
            } else {
                // No try of this call can have put the key, nor can one still in flight: each
                // compares the same count key, which is never changed but by hand. So the name is
                // free again at once, with no deletion in the background.
                queue.slots().deleted(own);
                throw mismatch(request, subject, reads.get(1).getKvs().get(0).getValue());
            }
            lease.keys.incrementAndGet();
            GetResponse listing = reads.get(reads.size() - 1);
            return new Entered(
                    own,
                    revision,
                    lease,
                    EtcdLockQueue.entries(listing),
                    answer.getHeader().getRevision());
        }
    }

    /** Puts the count key if it is absent (the first request of a name); whoever is first sets it. */
    private void recordCount(String subject, ByteSequence countKey, ByteSequence count, long deadline)
            throws InterruptedException {
        calls.callAbout(subject, "recording the permit count", deadline, () -> calls.client
                .getKVClient()
                .txn()
                .If(new Cmp(countKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(countKey, count, PutOption.DEFAULT))
                .commit());
    }

    private LockConfigurationException mismatch(LockRequest request, String subject, ByteSequence stored) {
        String text = stored.toString(StandardCharsets.UTF_8);
        String key = namespace + keys.permitCountText(request.name());
        String recorded;
        try {
            recorded = "etcd records " + Integer.parseInt(text.trim()) + " permits for this name";
        } catch (NumberFormatException e) {
            recorded = "etcd holds '" + text + "' where this name's permit count belongs, which is not a count";
        }
        return new LockConfigurationException(subject + ": " + recorded + " (key " + key + "), but this client asked"
                + " for " + request.permits() + "; use the same count everywhere, or, once no client uses the"
                + " semaphore, delete its count (etcdctl del '" + key + "') so that the next acquisition records"
                + " its own");
    }

    /** One key's turn, decided without waiting: a lock's ({@link EtcdQueueTurn}) or a permit's. */
    interface Turn {
        /**
         * Whether the key holds now; otherwise, with {@code waits}, watches are set whose news wakes
         * the waiter to look again.
         *
         * @param waits false to look once, as {@link dev.baton.spi.LockBackend#tryAcquire} does
         */
        boolean holds(boolean waits) throws InterruptedException;
    }

    /** The turn of the entered permit key, watched through {@code watch}. */
    Turn turn(LockRequest request, Entered entered, EtcdQueueWatch watch) {
        return new PermitTurn(request, entered, watch);
    }

    /**
     * A permit key's turn: it holds while fewer than {@code permits} keys ahead of it exist. It
     * decides on the window's watches while they are set, and lists the permits again when a watch
     * ended or its own key is to be confirmed.
     */
    private final class PermitTurn implements Turn {
        private final LockRequest request;
        private final String subject;
        private final Entered entered;
        private final EtcdQueueWatch watch;
        private final int permits;

        // Touched by one look at a time (the core makes one call per entry at a time).
        private List<Entry> ahead;
        private long listedAt;
        /** Whether the keys ahead are as listed (else some were seen gone since the listing). */
        private boolean listed = true;

        private boolean listAgain;
        /** The watched window; null while a listing decides. */
        private List<Entry> window;
        /** Window keys whose watch is known to have seen every delete since the listing. */
        private final Set<ByteSequence> verified = new HashSet<>();

        PermitTurn(LockRequest request, Entered entered, EtcdQueueWatch watch) {
            this.request = request;
            this.subject = calls.describe(request);
            this.entered = entered;
            this.watch = watch;
            this.permits = request.permits();
            this.ahead = ahead(subject, entered.queue(), entered);
            this.listedAt = entered.listedAt();
        }

        @Override
        public boolean holds(boolean waits) throws InterruptedException {
            while (true) {
                calls.checkOpenAbout(subject);
                // A dead lease is reported as such, not as the key it took with it.
                queue.checkLease(subject, entered.lease());
                if (window != null) {
                    if (watch.takeChanged()) {
                        listAgain = true; // a watch ended, the lease died, or closing
                    } else {
                        verify(window);
                        listed = false;
                    }
                    window = null;
                }
                if (listAgain) {
                    GetResponse listing =
                            calls.callAbout(subject, "reading the permits", calls.deadline(), () -> calls.client
                                    .getKVClient()
                                    .get(
                                            bytes(keys.permitPrefixText(request.name())),
                                            EtcdLockQueue.queue(entered.revision())));
                    ahead = ahead(subject, EtcdLockQueue.entries(listing), entered);
                    listedAt = listing.getHeader().getRevision();
                    listed = true;
                    listAgain = false;
                    verified.clear();
                }
                List<Entry> alive = new ArrayList<>(ahead.size());
                for (Entry entry : ahead) {
                    if (!watch.isGone(entry.key())) {
                        alive.add(entry);
                    }
                }
                if (alive.size() < permits) {
                    // Ours, if our key still exists: a listing shows it, and so does our lease being
                    // alive (etcd deletes the key with the lease). Else list to be sure.
                    if (listed || entered.lease().aliveAt(System.nanoTime())) {
                        return true;
                    }
                    listAgain = true;
                    continue;
                }
                if (!waits) {
                    return false;
                }
                window = alive.subList(alive.size() - permits, alive.size());
                watch.watch(
                        calls.client.getWatchClient(),
                        window.stream().map(Entry::key).toList());
                return false;
            }
        }

        /**
         * Once every watch of the window is live: reads, in one transaction, the window's keys whose
         * watch started after the listing and that are not yet verified, and marks the ones gone.
         */
        private void verify(List<Entry> window) throws InterruptedException {
            List<Entry> unseen = new ArrayList<>();
            for (Entry entry : window) {
                long createdAt = watch.createdAt(entry.key());
                if (createdAt == 0) {
                    return; // not live yet: its creation is news of its own
                }
                if (createdAt > listedAt && !verified.contains(entry.key()) && !watch.isGone(entry.key())) {
                    unseen.add(entry);
                }
            }
            for (Entry entry : queue.missing(subject, unseen)) {
                watch.gone(entry.key());
            }
            for (Entry entry : window) {
                verified.add(entry.key());
            }
        }
    }

    /** The entries ahead of ours, in order; fails if our key is not among them. */
    private List<Entry> ahead(String subject, List<Entry> entries, Entered entered) {
        List<Entry> ahead = new ArrayList<>();
        for (Entry entry : entries) {
            if (entry.revision() == entered.revision() && entry.key().equals(entered.key())) {
                return ahead;
            }
            ahead.add(entry);
        }
        throw new LockUnavailableException(subject + ": the attempt's key vanished while waiting (its etcd lease"
                + " expired or was revoked); retry");
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
