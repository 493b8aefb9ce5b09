package dev.baton.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One waiter's watch on the key ahead of it: one etcd watch at a time, on one key, for its delete
 * events only. The waiter blocks in {@link #await}; the watch's creation, its events, its failures,
 * a lost lease and the client's closing wake it. Its lock guards its flags only and is never held
 * across a call to etcd.
 *
 * <p>Why the watch starts "now" and not at the revision of the waiter's listing: etcd serves a watch
 * that starts at a past revision from its catch-up loop, which runs every 100 ms, and delivers its
 * events only once caught up; a watch that starts now is live at once. So a waiter's hand-off would
 * wait up to 100 ms whenever anything was written between its listing and its watch (in a busy
 * queue, nearly always). Instead the watch reports the revision it starts at ({@link
 * Outcome#CREATED}), and the waiter checks that the key still exists if that is later than its
 * listing: a delete in between is then seen by that read rather than by the watch.
 */
final class EtcdQueueWatch implements AutoCloseable {
    /** What ended a wait. */
    enum Outcome {
        /** The watched key was deleted. */
        DELETED,
        /** The watch is live from {@link #createdAt()} on (reported once per watch). */
        CREATED,
        /** Anything else happened (a watch failure, a lost lease, closing): look at the queue again. */
        CHANGED,
        /** The time ran out. */
        TIMED_OUT
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signalled = lock.newCondition();
    private Watch.Watcher watcher;
    /** Which watch the flags below belong to: events of an earlier watch are ignored. */
    private int generation;

    private boolean deleted;
    private boolean changed;
    private long createdAt;
    private boolean createdReported;

    /** Watches {@code key} for its deletion from now on, instead of the key watched so far. */
    void watch(Watch client, ByteSequence key) {
        Watch.Watcher previous;
        int mine;
        lock.lock();
        try {
            previous = watcher;
            watcher = null;
            mine = ++generation;
            deleted = false;
            changed = false;
            createdAt = 0;
            createdReported = false;
        } finally {
            lock.unlock();
        }
        if (previous != null) {
            previous.close();
        }
        WatchOption option =
                WatchOption.builder().withCreateNotify(true).withNoPut(true).build();
        Watch.Watcher started = client.watch(key, option, new Listener(mine));
        lock.lock();
        try {
            if (generation == mine) {
                watcher = started;
                return;
            }
        } finally {
            lock.unlock();
        }
        started.close();
    }

    /** Wakes the waiter to look at the queue again (a lost lease, the client closing). */
    void wake() {
        lock.lock();
        try {
            changed = true;
            signalled.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until the watched key is deleted or something else calls for a new look.
     *
     * @param timeoutNanos negative to wait without limit
     */
    Outcome await(long timeoutNanos) throws InterruptedException {
        lock.lock();
        try {
            long remaining = timeoutNanos;
            while (!deleted && !changed && (createdAt == 0 || createdReported)) {
                if (timeoutNanos < 0) {
                    signalled.await();
                } else {
                    if (remaining <= 0) {
                        return Outcome.TIMED_OUT;
                    }
                    remaining = signalled.awaitNanos(remaining);
                }
            }
            if (changed) {
                return Outcome.CHANGED;
            }
            if (deleted) {
                return Outcome.DELETED;
            }
            createdReported = true;
            return Outcome.CREATED;
        } finally {
            lock.unlock();
        }
    }

    /** The revision the current watch started at (its creation's header revision); 0 before. */
    long createdAt() {
        lock.lock();
        try {
            return createdAt;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        Watch.Watcher previous;
        lock.lock();
        try {
            previous = watcher;
            watcher = null;
            generation++;
        } finally {
            lock.unlock();
        }
        if (previous != null) {
            previous.close();
        }
    }

    /** The events of one watch; they count only while it is the current one. */
    private final class Listener implements Watch.Listener {
        private final int mine;

        Listener(int mine) {
            this.mine = mine;
        }

        @Override
        public void onNext(WatchResponse response) {
            boolean delete = false;
            for (WatchEvent event : response.getEvents()) {
                delete |= event.getEventType() == WatchEvent.EventType.DELETE;
            }
            if (delete) {
                signal(true);
            } else if (response.getEvents().isEmpty()) {
                created(response.getHeader().getRevision());
            }
        }

        private void created(long revision) {
            lock.lock();
            try {
                if (generation == mine && createdAt == 0) {
                    createdAt = Math.max(1, revision);
                    signalled.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void onError(Throwable failure) {
            // jetcd resumes a watch after a connection failure by itself, but a compacted start
            // revision or a cancelled watch ends it: list the queue again and watch anew either way.
            signal(false);
        }

        @Override
        public void onCompleted() {
            signal(false);
        }

        private void signal(boolean delete) {
            lock.lock();
            try {
                if (generation != mine) {
                    return;
                }
                if (delete) {
                    deleted = true;
                } else {
                    changed = true;
                }
                signalled.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}
