package dev.baton.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One waiter's watches on the keys ahead of it (its nearest blocker and the one before it; a
 * semaphore waiter's window of keys), each an etcd watch on one key for its delete events only. It
 * records what they see (a key deleted, a watch started, a watch ended) and wakes the waiter, which
 * decides on that record whenever it looks: no thread waits here, and a wake that goes astray only
 * delays the waiter until it looks again. A lost lease and the client's closing wake it too ({@link
 * #wake}). The wake runs on jetcd's callback threads (or the session's keeper), so it must only
 * schedule an attempt; this class never blocks there either: its lock guards its bookkeeping only,
 * never a call to etcd or the wake.
 *
 * <p>Why a watch starts "now" and not at the revision of the waiter's listing: etcd serves a watch
 * that starts at a past revision from its catch-up loop, which runs every 100 ms, and delivers its
 * events only once caught up; a watch that starts now is live at once. So a waiter's hand-off would
 * wait up to 100 ms whenever anything was written between its listing and its watch (in a busy
 * queue, nearly always). Instead each watch reports the revision it starts at ({@link #createdAt}),
 * and the waiter reads the key if that is later than its listing: a delete in between is then seen
 * by that read rather than by the watch ({@link #gone}).
 */
final class EtcdQueueWatch implements AutoCloseable {
    private final ReentrantLock lock = new ReentrantLock();
    private final Runnable wake;
    private final Map<ByteSequence, Watched> watched = new HashMap<>(4);
    /** Keys seen deleted: queue keys never come back. */
    private final Set<ByteSequence> deleted = new HashSet<>(4);

    /** Something other than news of a watched key (a watch ended, a lease lost, closing): list again. */
    private boolean changed;

    private boolean closed;

    /** @param wake tells the waiter to look again; must not block */
    EtcdQueueWatch(Runnable wake) {
        this.wake = wake;
    }

    /** A watch on one key, and the revision it is live from (0 until etcd said). */
    private final class Watched implements Watch.Listener {
        final ByteSequence key;
        Watch.Watcher watcher;
        long createdAt;

        Watched(ByteSequence key) {
            this.key = key;
        }

        @Override
        public void onNext(WatchResponse response) {
            boolean delete = false;
            for (WatchEvent event : response.getEvents()) {
                delete |= event.getEventType() == WatchEvent.EventType.DELETE;
            }
            lock.lock();
            try {
                if (watched.get(key) != this) {
                    return;
                }
                if (delete) {
                    deleted.add(key);
                } else if (response.getEvents().isEmpty() && createdAt == 0) {
                    createdAt = Math.max(1, response.getHeader().getRevision());
                } else {
                    return;
                }
            } finally {
                lock.unlock();
            }
            wake.run();
        }

        @Override
        public void onError(Throwable failure) {
            // jetcd resumes a watch after a connection failure by itself, but a cancelled watch ends
            // (a member without leader, a compaction): list the queue again and watch anew.
            ended();
        }

        @Override
        public void onCompleted() {
            ended();
        }

        private void ended() {
            lock.lock();
            try {
                if (watched.get(key) != this) {
                    return;
                }
                watched.remove(key);
                changed = true;
            } finally {
                lock.unlock();
            }
            wake.run();
        }
    }

    /**
     * Watches exactly {@code keys} (not yet known deleted) from now on: a key already watched keeps
     * its watch, the others' watches are closed.
     */
    void watch(Watch client, List<ByteSequence> keys) {
        List<Watch.Watcher> toClose = new ArrayList<>();
        List<Watched> toStart = new ArrayList<>();
        lock.lock();
        try {
            watched.entrySet().removeIf(entry -> {
                if (keys.contains(entry.getKey())) {
                    return false;
                }
                if (entry.getValue().watcher != null) {
                    toClose.add(entry.getValue().watcher);
                }
                return true;
            });
            for (ByteSequence key : keys) {
                if (!watched.containsKey(key) && !deleted.contains(key)) {
                    Watched fresh = new Watched(key);
                    watched.put(key, fresh);
                    toStart.add(fresh);
                }
            }
        } finally {
            lock.unlock();
        }
        toClose.forEach(Watch.Watcher::close);
        WatchOption option =
                WatchOption.builder().withCreateNotify(true).withNoPut(true).build();
        for (Watched fresh : toStart) {
            Watch.Watcher started = client.watch(fresh.key, option, fresh);
            lock.lock();
            try {
                if (watched.get(fresh.key) == fresh && !closed) {
                    fresh.watcher = started;
                    continue;
                }
            } finally {
                lock.unlock();
            }
            started.close();
        }
    }

    /** Wakes the waiter to look at the queue again (a lost lease, the client closing). */
    void wake() {
        lock.lock();
        try {
            changed = true;
        } finally {
            lock.unlock();
        }
        wake.run();
    }

    /** Whether something called for a new listing since the last call; clears it. */
    boolean takeChanged() {
        lock.lock();
        try {
            boolean was = changed;
            changed = false;
            return was;
        } finally {
            lock.unlock();
        }
    }

    /** Whether {@code key} was seen deleted. */
    boolean isGone(ByteSequence key) {
        lock.lock();
        try {
            return deleted.contains(key);
        } finally {
            lock.unlock();
        }
    }

    /** Records that a read found {@code key} gone. */
    void gone(ByteSequence key) {
        lock.lock();
        try {
            deleted.add(key);
        } finally {
            lock.unlock();
        }
    }

    /** The revision the watch on {@code key} is live from; 0 if not yet known (or not watched). */
    long createdAt(ByteSequence key) {
        lock.lock();
        try {
            Watched watch = watched.get(key);
            return watch == null ? 0 : watch.createdAt;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        List<Watch.Watcher> toClose = new ArrayList<>();
        lock.lock();
        try {
            closed = true;
            for (Watched watch : watched.values()) {
                if (watch.watcher != null) {
                    toClose.add(watch.watcher);
                }
            }
            watched.clear();
        } finally {
            lock.unlock();
        }
        toClose.forEach(Watch.Watcher::close);
    }
}
