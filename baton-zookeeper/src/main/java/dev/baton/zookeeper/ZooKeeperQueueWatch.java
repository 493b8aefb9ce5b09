package dev.baton.zookeeper;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * One waiter's view of the queue nodes it watches: one watcher for the whole wait (so a watch is set
 * once per node), the watched nodes seen deleted (queue nodes never come back), and whether anything
 * else happened that calls for listing the queue again. Its lock is held for bookkeeping only, never
 * across a ZooKeeper call.
 */
final class ZooKeeperQueueWatch implements Watcher {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signalled = lock.newCondition();
    /** Nodes with this wait's watch set and not yet fired. */
    private final Set<String> armed = new HashSet<>();
    /** Watched nodes seen deleted. */
    private final Set<String> deleted = new HashSet<>();
    /** Something other than a deletion: list again (and set the watches again). */
    private boolean changed;

    @Override
    public void process(WatchedEvent event) {
        lock.lock();
        try {
            if (event.getType() == Event.EventType.None) {
                if (event.getState() != Event.KeeperState.Expired && event.getState() != Event.KeeperState.Closed) {
                    return; // disconnected / reconnected: watches survive within the session
                }
                armed.clear();
                changed = true;
            } else if (event.getPath() != null && armed.remove(event.getPath())) {
                if (event.getType() == Event.EventType.NodeDeleted) {
                    deleted.add(event.getPath());
                } else {
                    changed = true;
                }
            } else {
                return;
            }
            signalled.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Marks {@code path} as watched; false if it already is, or is known to be gone. */
    boolean arm(String path) {
        lock.lock();
        try {
            return !deleted.contains(path) && armed.add(path);
        } finally {
            lock.unlock();
        }
    }

    void disarm(String path) {
        lock.lock();
        try {
            armed.remove(path);
        } finally {
            lock.unlock();
        }
    }

    void gone(String path) {
        lock.lock();
        try {
            armed.remove(path);
            deleted.add(path);
        } finally {
            lock.unlock();
        }
    }

    boolean isGone(String path) {
        lock.lock();
        try {
            return deleted.contains(path);
        } finally {
            lock.unlock();
        }
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

    /** Close, loss or reconnection: the waiter looks again; its watches are set again. */
    void wake() {
        lock.lock();
        try {
            armed.clear();
            changed = true;
            signalled.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until {@code nearest} or {@code before} (may be null) is gone or something else
     * changed; false if the time ran out first.
     */
    boolean await(String nearest, String before, long timeoutNanos) throws InterruptedException {
        lock.lock();
        try {
            long remaining = timeoutNanos;
            while (!changed && !deleted.contains(nearest) && (before == null || !deleted.contains(before))) {
                if (timeoutNanos == Long.MAX_VALUE) {
                    signalled.await();
                } else {
                    if (remaining <= 0) {
                        return false;
                    }
                    remaining = signalled.awaitNanos(remaining);
                }
            }
            return true;
        } finally {
            lock.unlock();
        }
    }
}
