package dev.baton.zookeeper;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * One waiter's view of the nodes it watches: one watcher for the whole wait (so a watch is set once
 * per node), the watched nodes seen deleted (queue nodes never come back), and whether anything else
 * happened that calls for listing again. The waiter decides from this record whenever it looks, so a
 * wake that goes astray only delays it until it looks again.
 *
 * <p>Every event it records wakes the waiter ({@code wake}), on ZooKeeper's event thread (or the
 * connection listener's): the wake only schedules an attempt, so nothing here blocks or calls
 * ZooKeeper. Its lock guards the bookkeeping only, never a ZooKeeper call or the wake.
 */
final class ZooKeeperQueueWatch implements Watcher {
    private final ReentrantLock lock = new ReentrantLock();
    private final Runnable wake;
    /** Nodes with this wait's watch set and not yet fired. */
    private final Set<String> armed = new HashSet<>(4);
    /** Watched nodes seen deleted. */
    private final Set<String> deleted = new HashSet<>(4);
    /** Something other than a deletion: list again (and set the watches again). */
    private boolean changed;

    /** @param wake tells the waiter to look again; must not block */
    ZooKeeperQueueWatch(Runnable wake) {
        this.wake = wake;
    }

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
        } finally {
            lock.unlock();
        }
        wake.run();
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

    /** Close, loss or reconnection: the waiter looks again, and sets its watches again. */
    void wake() {
        lock.lock();
        try {
            armed.clear();
            changed = true;
        } finally {
            lock.unlock();
        }
        wake.run();
    }
}
