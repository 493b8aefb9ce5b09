package dev.baton.zookeeper;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.curator.framework.state.ConnectionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue nodes this client holds as grants, and what the session means for them. A grant lives
 * as long as the session, and at most its lease time without renewal: one sweep every 100 ms
 * deletes the node of a lease that ran out, so that a holder without auto-renewal frees the lock as
 * on every other backend. SUSPENDED (disconnected) marks every held grant lost unless the URI says
 * {@code onSuspended=wait}; LOST (session expired) always does; the core learns it at the next
 * renewal. After RECONNECTED, the nodes of grants reported lost are deleted, so that the lock does
 * not stay taken by a holder that was told it lost it.
 */
final class ZooKeeperHeldNodes {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperHeldNodes.class);
    private static final AtomicInteger TIMERS = new AtomicInteger();
    private static final long LEASE_SWEEP_MILLIS = 100;

    private final ZooKeeperCalls calls;
    private final boolean waitForReconnect;
    private final Set<HeldNode> held = ConcurrentHashMap.newKeySet();
    private final ScheduledThreadPoolExecutor leaseTimer;
    private volatile boolean suspended;

    ZooKeeperHeldNodes(ZooKeeperCalls calls, boolean waitForReconnect) {
        this.calls = calls;
        this.waitForReconnect = waitForReconnect;
        String timerName = "baton-zookeeper-lease-" + TIMERS.incrementAndGet();
        this.leaseTimer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, timerName);
            thread.setDaemon(true);
            return thread;
        });
        leaseTimer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        // One sweep for every grant instead of a timer per grant: acquiring stays free of timer
        // traffic, and a lease runs out at most one sweep late.
        leaseTimer.scheduleWithFixedDelay(
                this::sweepExpiredLeases, LEASE_SWEEP_MILLIS, LEASE_SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Registers a granted node; it is lost from the start if the connection is down now. */
    HeldNode hold(String lockName, String path, Duration leaseTime) {
        HeldNode node = new HeldNode(lockName, path, leaseTime);
        if (suspended && !waitForReconnect) {
            node.lost = true;
        }
        held.add(node);
        node.scheduleExpiry(System.nanoTime() + leaseTime.toNanos());
        return node;
    }

    /** Forgets a node that is being released: its lease no longer runs out. */
    void forget(HeldNode node) {
        held.remove(node);
        node.cancelExpiry();
    }

    /** Whether the connection is down (between SUSPENDED or LOST and the next connection). */
    boolean suspended() {
        return suspended;
    }

    void onConnectionState(ConnectionState state) {
        switch (state) {
            case SUSPENDED -> {
                suspended = true;
                if (!waitForReconnect) {
                    markAllLost("the connection to ZooKeeper was suspended");
                }
            }
            case LOST -> {
                suspended = true;
                markAllLost("the ZooKeeper session was lost");
            }
            case RECONNECTED -> {
                suspended = false;
                for (HeldNode node : held) {
                    if (node.lost) {
                        calls.deleteInBackground(node.path);
                    }
                }
            }
            case CONNECTED -> suspended = false;
            default -> {}
        }
    }

    private void markAllLost(String why) {
        int count = 0;
        for (HeldNode node : held) {
            if (!node.lost) {
                node.lost = true;
                count++;
            }
        }
        if (count > 0) {
            log.warn("{}: {}; {} held lease(s) reported lost at their next renewal", calls.backendName(), why, count);
        }
    }

    private void sweepExpiredLeases() {
        long now = System.nanoTime();
        for (HeldNode node : held) {
            if (node.expireIfDue(now)) {
                held.remove(node);
                log.info(
                        "{}: lease time {} ran out without renewal; deleting the node {}",
                        calls.describe(node.lockName),
                        node.leaseTime,
                        node.path);
                calls.deleteInBackground(node.path);
            }
        }
    }

    void stop() {
        leaseTimer.shutdownNow();
    }

    /** A granted queue node: its lease deadline and whether it is known lost. */
    static final class HeldNode {
        final String lockName;
        final String path;
        final Duration leaseTime;
        private final ReentrantLock state = new ReentrantLock();
        volatile boolean lost;
        volatile boolean expired;
        private long deadlineNanos;
        private boolean released;

        HeldNode(String lockName, String path, Duration leaseTime) {
            this.lockName = lockName;
            this.path = path;
            this.leaseTime = leaseTime;
        }

        void scheduleExpiry(long deadline) {
            state.lock();
            try {
                deadlineNanos = deadline;
            } finally {
                state.unlock();
            }
        }

        /** Moves the deadline; false if the lease already ran out. */
        boolean extend(long deadline) {
            state.lock();
            try {
                if (expired) {
                    return false;
                }
                deadlineNanos = Math.max(deadlineNanos, deadline);
                return true;
            } finally {
                state.unlock();
            }
        }

        void cancelExpiry() {
            state.lock();
            try {
                released = true;
            } finally {
                state.unlock();
            }
        }

        /** Marks the lease run out if its deadline passed; true if this call did. */
        boolean expireIfDue(long now) {
            state.lock();
            try {
                if (released || expired || deadlineNanos - now > 0) {
                    return false;
                }
                expired = true;
                lost = true;
                return true;
            } finally {
                state.unlock();
            }
        }

        /** Whether the grant still holds as far as this client knows. */
        boolean valid() {
            return !lost && !expired;
        }
    }
}
