package dev.baton.zookeeper;

import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockInfo;
import dev.baton.spi.LockMode;
import dev.baton.spi.LockRequest;
import dev.baton.zookeeper.ZooKeeperHeldNodes.HeldNode;
import dev.baton.zookeeper.ZooKeeperQueueProtocol.Entered;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;

/**
 * Locks as Curator-compatible queues of ephemeral sequential nodes. This class is the SPI over four
 * parts: the queue's node names and rules ({@link ZooKeeperLockQueue}), one client's joining of and
 * waiting in a queue ({@link ZooKeeperQueueProtocol}, with {@link ZooKeeperQueueWatch}), the held
 * nodes and what the session means for them ({@link ZooKeeperHeldNodes}), and the bounded ZooKeeper
 * calls ({@link ZooKeeperCalls}).
 *
 * <p>Connections, sessions and authentication come from a {@link CuratorFramework}; the recipes are
 * written here. Every ZooKeeper call is bounded by the operation timeout and reports an ensemble
 * that does not answer in time as {@link LockUnavailableException}. The node of a request has the
 * form of the Curator recipe that matches the kind asked for ({@link LockRequest#kind()}).
 *
 * <p>Leases: a grant lives as long as the ZooKeeper session and at most its lease time without
 * renewal. A renewal checks that the node still exists. Loss (a suspended connection unless {@code
 * onSuspended=wait}, an expired session, a lease run out) is reported at the next renewal.
 */
final class ZooKeeperLockBackend implements LockBackend {
    private final ZooKeeperUri uri;
    private final ZooKeeperCalls calls;
    private final ZooKeeperQueueProtocol queue;
    private final ZooKeeperHeldNodes held;

    ZooKeeperLockBackend(ZooKeeperUri uri, LockOptions options, CuratorFramework curator) {
        this.uri = uri;
        this.calls = new ZooKeeperCalls(uri, curator, options.operationTimeout());
        this.queue = new ZooKeeperQueueProtocol(
                calls, uri.creatorOnlyAcl() ? ZooDefs.Ids.CREATOR_ALL_ACL : ZooDefs.Ids.OPEN_ACL_UNSAFE, uri.root());
        this.held = new ZooKeeperHeldNodes(calls, uri.waitForReconnect());
        curator.getConnectionStateListenable().addListener((client, state) -> {
            held.onConnectionState(state);
            if (state == ConnectionState.LOST || state == ConnectionState.RECONNECTED) {
                queue.wakeWaiters();
            }
        });
    }

    @Override
    public String name() {
        return calls.backendName();
    }

    @Override
    public boolean queuesWaiters() {
        return true;
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        try {
            return acquire(request, 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(
                    calls.describe(request.name()) + ": interrupted while talking to ZooKeeper; retry", e);
        }
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        long start = System.nanoTime();
        String lockPath = ZooKeeperLockPaths.lockPath(uri.root(), request.name());
        Entered entered = queue.enter(request, lockPath, calls.deadline());
        boolean granted = false;
        try {
            granted = queue.awaitTurn(request, lockPath, entered, start, timeoutNanos);
            return granted ? Optional.of(grant(request, entered)) : Optional.empty();
        } finally {
            if (!granted) {
                calls.deleteQuietly(request.name(), entered.own().path());
            }
        }
    }

    private Grant grant(LockRequest request, Entered entered) {
        HeldNode node = held.hold(request.name(), entered.own().path(), request.leaseTime());
        return new Grant(
                request.name(),
                request.ownerId(),
                request.mode(),
                entered.own().czxid(),
                Instant.now().plus(request.leaseTime()),
                node);
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        HeldNode node = (HeldNode) grant.backendState();
        if (node == null || !node.valid()) {
            return Optional.empty();
        }
        if (held.suspended()) {
            throw new LockUnavailableException(calls.describe(grant.name())
                    + ": disconnected from ZooKeeper; waiting for the connection to come back within the session"
                    + " timeout (" + uri.sessionTimeout() + ")");
        }
        long sentAt = System.nanoTime();
        Stat stat;
        try {
            stat = calls.bounded(grant.name(), "renewing", calls.deadline(), () -> calls.curator
                    .checkExists()
                    .forPath(node.path));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(calls.describe(grant.name()) + ": interrupted while renewing", e);
        }
        if (stat == null || node.lost) {
            node.lost = true;
            return Optional.empty();
        }
        if (!node.extend(sentAt + leaseTime.toNanos())) {
            return Optional.empty();
        }
        return Optional.of(grant.withExpiresAt(Instant.now().plus(leaseTime)));
    }

    @Override
    public boolean release(Grant grant) {
        HeldNode node = (HeldNode) grant.backendState();
        if (node == null) {
            // abandon() of the default kind: nothing was granted.
            return false;
        }
        held.forget(node);
        boolean wasValid = node.valid();
        try {
            return calls.delete(grant.name(), node.path, calls.deadline()) && wasValid;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(
                    calls.describe(grant.name()) + ": interrupted while releasing; ZooKeeper removes the node when"
                            + " the session ends",
                    e);
        }
    }

    @Override
    public void abandon(LockRequest request) {
        boolean interrupted = Thread.interrupted();
        try {
            queue.removeOwn(request, ZooKeeperLockPaths.lockPath(uri.root(), request.name()));
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public Optional<LockInfo> inspect(String lockName) {
        String lockPath = ZooKeeperLockPaths.lockPath(uri.root(), lockName);
        long deadline = calls.deadline();
        try {
            List<String> holders =
                    ZooKeeperLockQueue.holders(ZooKeeperLockQueue.sorted(calls.children(lockName, lockPath, deadline)));
            List<String> owners = new ArrayList<>();
            long token = 0;
            for (String holder : holders) {
                Stat stat = new Stat();
                try {
                    byte[] data = calls.bounded(lockName, "inspecting", deadline, () -> calls.curator
                            .getData()
                            .storingStatIn(stat)
                            .forPath(lockPath + "/" + holder));
                    owners.add(data == null ? holder : new String(data, StandardCharsets.UTF_8));
                    token = Math.max(token, stat.getCzxid());
                } catch (ZooKeeperCalls.NoNode e) {
                    // released meanwhile
                }
            }
            if (owners.isEmpty()) {
                return Optional.empty();
            }
            LockMode mode = ZooKeeperLockQueue.isRead(holders.get(0)) ? LockMode.SHARED : LockMode.EXCLUSIVE;
            return Optional.of(
                    new LockInfo(lockName, mode, owners, token, Instant.now().plus(uri.sessionTimeout())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(calls.describe(lockName) + ": interrupted while inspecting", e);
        }
    }

    @Override
    public void close() {
        if (calls.isClosed()) {
            return;
        }
        // Closed before the waiters wake, so that each one either sees the flag or is woken.
        calls.markClosed();
        queue.wakeWaiters();
        held.stop();
        calls.closeSession();
    }
}
