package dev.baton.etcd;

import dev.baton.LockUnavailableException;
import dev.baton.etcd.EtcdLockQueue.Entered;
import dev.baton.etcd.EtcdLockQueue.Entry;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.GetResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * One key's turn in a lock's queue, decided without waiting: {@link #holds} says whether the key
 * holds now, and otherwise leaves watches on the keys ahead whose news wakes the waiter to look again
 * ({@link EtcdQueueWatch}). No thread waits in between.
 *
 * <p>The rules are {@link EtcdLockQueue}'s: the waiter watches the deletes of the nearest key that
 * blocks it and of the one before it. When the nearest goes and it was the last blocker (the only
 * one, or the second of two and the first has gone), the key holds with no further request: nothing
 * joins ahead of it, and its lease was alive, so the key was there. When the one before goes and
 * more remain, the keys up to its own are listed again at once, while the nearest still blocks, so
 * that its hand-off needs no listing either. Each watch is live from its creation: once both are,
 * the keys whose watch started after the listing are read once, so that a delete in between is not
 * missed.
 */
final class EtcdQueueTurn implements EtcdPermits.Turn {
    private enum Seen {
        NOTHING,
        HOLDS,
        LIST_AGAIN
    }

    private final EtcdCalls calls;
    private final EtcdLockQueue lockQueue;
    private final EtcdKeys keys;
    private final String name;
    private final String subject;
    private final Entered entered;
    private final boolean read;
    private final EtcdQueueWatch watch;

    // Touched by one look at a time (the core makes one call per entry at a time).
    private List<Entry> queue;
    private long listedAt;
    private boolean listAgain;
    /** The blockers when the watches were set; null while a listing decides. */
    private List<Entry> blockers;

    private ByteSequence nearest;
    private ByteSequence before;
    private boolean last;
    /** Whether the watched keys whose watch started after the listing were read. */
    private boolean checked;

    EtcdQueueTurn(
            EtcdCalls calls,
            EtcdLockQueue lockQueue,
            EtcdKeys keys,
            String name,
            Entered entered,
            boolean read,
            EtcdQueueWatch watch) {
        this.calls = calls;
        this.lockQueue = lockQueue;
        this.keys = keys;
        this.name = name;
        this.subject = calls.describe(name);
        this.entered = entered;
        this.read = read;
        this.watch = watch;
        this.queue = entered.queue();
        this.listedAt = entered.listedAt();
    }

    @Override
    public boolean holds(boolean waits) throws InterruptedException {
        while (true) {
            calls.checkOpen(name);
            lockQueue.checkLease(subject, entered.lease());
            if (blockers != null) {
                switch (seen()) {
                    case NOTHING -> {
                        return false;
                    }
                    case HOLDS -> {
                        return true;
                    }
                    case LIST_AGAIN -> {
                        blockers = null;
                        listAgain = true;
                    }
                }
            }
            if (listAgain) {
                GetResponse listing = calls.call(name, "reading the queue", calls.deadline(), () -> calls.client
                        .getKVClient()
                        .get(keys.prefix(name), EtcdLockQueue.queue(entered.revision())));
                queue = EtcdLockQueue.entries(listing);
                listedAt = listing.getHeader().getRevision();
                listAgain = false;
            }
            List<Entry> blocking = blockers(queue);
            if (blocking.isEmpty()) {
                return true;
            }
            if (!waits) {
                return false;
            }
            nearest = blocking.get(blocking.size() - 1).key();
            before = blocking.size() >= 2 ? blocking.get(blocking.size() - 2).key() : null;
            last = blocking.size() == 1;
            checked = false;
            blockers = blocking;
            watch.watch(calls.client.getWatchClient(), before == null ? List.of(nearest) : List.of(nearest, before));
        }
    }

    /** What the watches saw since the last look; may read the watched keys once (see the class). */
    private Seen seen() throws InterruptedException {
        if (watch.takeChanged()) {
            return Seen.LIST_AGAIN;
        }
        List<Entry> watched = blockers.subList(Math.max(0, blockers.size() - 2), blockers.size());
        // A watch is live from its creation on: once both are, a delete after the listing and
        // before a watch's start is found by one read of the keys whose watch started later.
        if (!checked && watched.stream().allMatch(entry -> watch.createdAt(entry.key()) != 0)) {
            List<Entry> unseen = watched.stream()
                    .filter(entry -> watch.createdAt(entry.key()) > listedAt && !watch.isGone(entry.key()))
                    .toList();
            for (Entry entry : lockQueue.missing(subject, unseen)) {
                watch.gone(entry.key());
            }
            checked = true;
        }
        if (before != null && watch.isGone(before)) {
            if (blockers.size() > 2) {
                return Seen.LIST_AGAIN; // list again while the nearest still blocks
            }
            last = true;
        }
        if (watch.isGone(nearest)) {
            // The last blocker went, and nothing joins ahead of us: ours, if our key still existed
            // then. It did if our lease was alive, and the session knows until when etcd keeps it
            // for sure; a client that was stopped past that lists the queue.
            return last && entered.lease().aliveAt(System.nanoTime()) ? Seen.HOLDS : Seen.LIST_AGAIN;
        }
        return Seen.NOTHING;
    }

    /** The entries that keep ours from holding; fails if our key is not in the queue. */
    private List<Entry> blockers(List<Entry> entries) {
        List<Entry> blocking = new ArrayList<>();
        for (Entry entry : entries) {
            if (entry.revision() == entered.revision() && entry.key().equals(entered.key())) {
                return blocking;
            }
            if (!read || !entry.read()) {
                blocking.add(entry);
            }
        }
        throw new LockUnavailableException(subject + ": the attempt's key vanished from the queue while"
                + " waiting (its etcd lease expired or was revoked); retry");
    }
}
