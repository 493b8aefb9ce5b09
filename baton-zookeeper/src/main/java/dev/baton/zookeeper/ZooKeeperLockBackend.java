package dev.baton.zookeeper;

import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockInfo;
import dev.baton.spi.LockMode;
import dev.baton.spi.LockRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks as Curator-compatible queues of ephemeral sequential nodes (see {@link ZooKeeperLockQueue}).
 *
 * <p>Connections, sessions and authentication come from a {@link CuratorFramework}; the recipes
 * are written here. Every ZooKeeper call is bounded by the operation timeout: a connection loss is
 * retried (after waiting for the connection) until that time runs out, and then reported as {@link
 * LockUnavailableException}. Creating a queue node is protected: after a connection loss the node is
 * looked up by its unique prefix before creating it again, so an attempt never leaves a duplicate.
 *
 * <p>Leases: a grant lives as long as the ZooKeeper session and at most its lease time without
 * renewal (this backend deletes a node whose lease ran out, at most 100 ms late, so that a holder
 * without auto-renewal frees the lock like on every other backend). A renewal checks that the node still exists.
 * SUSPENDED (disconnected) marks every held grant lost unless the URI says {@code
 * onSuspended=wait}; LOST (session expired) always does; the core learns it at the next renewal
 * (a third of the lease time) and reports it through {@code onLost}.
 */
final class ZooKeeperLockBackend implements LockBackend {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockBackend.class);
    private static final AtomicInteger BACKENDS = new AtomicInteger();
    private static final long LEASE_SWEEP_MILLIS = 100;

    private final ZooKeeperUri uri;
    private final CuratorFramework curator;
    /** Curator's namespace as a path prefix, for calls made on the ZooKeeper handle directly. */
    private final String namespace;

    private final List<ACL> acl;
    private final long operationTimeoutNanos;
    private final String name;
    private final Set<HeldNode> held = ConcurrentHashMap.newKeySet();
    private final Set<WaitSignal> waiters = ConcurrentHashMap.newKeySet();
    private final ScheduledThreadPoolExecutor leaseTimer;
    private volatile boolean closed;
    private volatile boolean suspended;
    /**
     * Lock nodes this client may not write (see {@link #enter}), remembered so that their queues are
     * entered without a failing multi first; bounded by forgetting them all now and then.
     */
    private final Set<String> unwritableLockNodes = ConcurrentHashMap.newKeySet();

    private static final int UNWRITABLE_REMEMBERED = 10_000;

    private static final byte[] EMPTY = new byte[0];

    ZooKeeperLockBackend(ZooKeeperUri uri, LockOptions options, CuratorFramework curator) {
        this.uri = uri;
        this.curator = curator;
        String ns = curator.getNamespace();
        this.namespace = ns == null || ns.isEmpty() ? "" : "/" + ns;
        this.acl = uri.creatorOnlyAcl() ? ZooDefs.Ids.CREATOR_ALL_ACL : ZooDefs.Ids.OPEN_ACL_UNSAFE;
        this.operationTimeoutNanos = options.operationTimeout().toNanos();
        this.name = "zookeeper (" + uri.connectStringWithChroot() + ")";
        String timerName = "baton-zookeeper-lease-" + BACKENDS.incrementAndGet();
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
        curator.getConnectionStateListenable().addListener((client, state) -> onConnectionState(state));
    }

    @Override
    public String name() {
        return name;
    }

    // ---------------------------------------------------------------- acquire

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
                    describe(request.name()) + ": interrupted while talking to ZooKeeper; retry", e);
        }
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        long start = System.nanoTime();
        String lockPath = ZooKeeperLockPaths.lockPath(uri.root(), request.name());
        Entered entered = enter(request, lockPath, start + operationTimeoutNanos);
        QueueNode own = entered.own();
        boolean granted = false;
        try {
            Optional<Grant> grant = waitInQueue(request, lockPath, own, entered.children(), start, timeoutNanos);
            granted = grant.isPresent();
            return grant;
        } finally {
            if (!granted) {
                deleteQuietly(request.name(), own.path());
            }
        }
    }

    private record QueueNode(String path, String node, long czxid) {}

    /** The new queue node, and the queue as listed right after it was created (null if unknown). */
    private record Entered(QueueNode own, List<String> children) {}

    /**
     * Creates the queue node in one round trip that also tells whether it is alone in the queue: a
     * multi of the create and an empty write of the lock node's data. Both are one transaction, so
     * the lock node's stat that the write returns counts the children at the moment our node
     * joined, and its mzxid is our node's czxid (the fencing token). Alone means first, and first
     * stays first, because nodes only ever join behind it: the lock is held without listing the
     * queue. Otherwise the queue is listed. The lock node's data is never read (Curator's recipes
     * leave it empty and do not watch it); only its version moves.
     *
     * <p>Anything unusual falls back to the protected {@link #create}: a missing lock node (created
     * there with its parents), a lock node this client may not write (then the multi is not tried
     * again on that node), a connection loss (the node is looked up by its protection prefix first).
     */
    private Entered enter(LockRequest request, String lockPath, long deadline) throws InterruptedException {
        checkOpen(request.name());
        ZooKeeper zk = unwritableLockNodes.contains(lockPath) ? null : connectedHandle();
        if (zk == null) {
            return new Entered(create(request, lockPath, deadline), null);
        }
        String base = lockPath + "/" + ZooKeeperLockQueue.nodePrefix(request.ownerId(), request.kind());
        List<OpResult> results;
        try {
            results = zk.multi(List.of(
                    Op.create(
                            namespace + base,
                            request.ownerId().getBytes(StandardCharsets.UTF_8),
                            acl,
                            CreateMode.EPHEMERAL_SEQUENTIAL),
                    Op.setData(namespace + lockPath, EMPTY, -1)));
        } catch (KeeperException.NoNodeException e) {
            return new Entered(create(request, lockPath, deadline), null);
        } catch (KeeperException.NoAuthException e) {
            if (unwritableLockNodes.size() >= UNWRITABLE_REMEMBERED) {
                unwritableLockNodes.clear();
            }
            if (unwritableLockNodes.add(lockPath)) {
                log.debug(
                        "{}: may not write lock node {} ({}); entering its queue with a separate listing",
                        name,
                        lockPath,
                        e.toString());
            }
            return new Entered(create(request, lockPath, deadline), null);
        } catch (KeeperException.ConnectionLossException
                | KeeperException.OperationTimeoutException
                | KeeperException.SessionMovedException e) {
            // Possibly applied before the connection broke: the protected path looks for it.
            awaitConnection(request.name(), "creating the queue node", deadline, e);
            QueueNode found =
                    findOwn(request.name(), lockPath, ZooKeeperLockQueue.protectionPrefix(request.ownerId()), deadline);
            return new Entered(found != null ? found : create(request, lockPath, deadline), null);
        } catch (KeeperException e) {
            // An expired session, or a failure the protected path reports with its context.
            return new Entered(create(request, lockPath, deadline), null);
        } catch (InterruptedException e) {
            cleanUpAfterInterrupt(request, lockPath);
            throw e;
        }
        String own = ((OpResult.CreateResult) results.get(0)).getPath().substring(namespace.length());
        Stat lockNode = ((OpResult.SetDataResult) results.get(1)).getStat();
        QueueNode node = new QueueNode(own, own.substring(lockPath.length() + 1), lockNode.getMzxid());
        return new Entered(node, lockNode.getNumChildren() == 1 ? List.of(node.node()) : null);
    }

    /** The ZooKeeper handle if the client is connected now, else null (then Curator's calls wait). */
    private ZooKeeper connectedHandle() {
        try {
            return curator.getZookeeperClient().isConnected()
                    ? curator.getZookeeperClient().getZooKeeper()
                    : null;
        } catch (Exception e) {
            return null;
        }
    }

    private QueueNode create(LockRequest request, String lockPath, long deadline) throws InterruptedException {
        String protection = ZooKeeperLockQueue.protectionPrefix(request.ownerId());
        String base = lockPath + "/" + ZooKeeperLockQueue.nodePrefix(request.ownerId(), request.kind());
        byte[] data = request.ownerId().getBytes(StandardCharsets.UTF_8);
        while (true) {
            checkOpen(request.name());
            Stat stat = new Stat();
            try {
                String path = curator.create()
                        .storingStatIn(stat)
                        .creatingParentContainersIfNeeded()
                        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                        .forPath(base, data);
                return new QueueNode(path, path.substring(lockPath.length() + 1), stat.getCzxid());
            } catch (KeeperException.ConnectionLossException
                    | KeeperException.OperationTimeoutException
                    | KeeperException.SessionMovedException e) {
                // The create may have succeeded before the connection broke: look for our node.
                awaitConnection(request.name(), "creating the queue node", deadline, e);
                QueueNode found = findOwn(request.name(), lockPath, protection, deadline);
                if (found != null) {
                    return found;
                }
            } catch (KeeperException.SessionExpiredException e) {
                // An ephemeral node of an expired session is gone: just create again.
                awaitConnection(request.name(), "creating the queue node", deadline, e);
            } catch (KeeperException.NoAuthException e) {
                throw new LockUnavailableException(
                        describe(request.name()) + ": ZooKeeper refused to create " + base
                                + " (no permission); give the URI's user create rights on " + uri.root(),
                        e);
            } catch (InterruptedException e) {
                // The create may have reached the server: remove what it may have left.
                cleanUpAfterInterrupt(request, lockPath);
                throw e;
            } catch (Exception e) {
                throw failure(request.name(), "creating the queue node", e);
            }
        }
    }

    private QueueNode findOwn(String lockName, String lockPath, String protection, long deadline)
            throws InterruptedException {
        for (String child : children(lockName, lockPath, deadline)) {
            if (child.startsWith(protection)) {
                String path = lockPath + "/" + child;
                Stat stat = bounded(lockName, "reading the queue node", deadline, () -> curator.checkExists()
                        .forPath(path));
                if (stat != null) {
                    return new QueueNode(path, child, stat.getCzxid());
                }
            }
        }
        return null;
    }

    private void cleanUpAfterInterrupt(LockRequest request, String lockPath) {
        try {
            removeByPrefix(request.name(), lockPath, ZooKeeperLockQueue.protectionPrefix(request.ownerId()));
        } catch (RuntimeException | InterruptedException cleanup) {
            log.warn(
                    "{}: could not remove the queue node of an interrupted attempt; ZooKeeper removes it when"
                            + " the session ends: {}",
                    describe(request.name()),
                    cleanup.toString());
        }
    }

    private Optional<Grant> waitInQueue(
            LockRequest request,
            String lockPath,
            QueueNode own,
            List<String> firstListing,
            long start,
            long timeoutNanos)
            throws InterruptedException {
        boolean ownIsRead = request.mode() == LockMode.SHARED;
        WaitSignal signal = new WaitSignal();
        waiters.add(signal);
        try {
            while (true) {
                checkOpen(request.name());
                List<String> listing = firstListing != null
                        ? firstListing
                        : children(request.name(), lockPath, System.nanoTime() + operationTimeoutNanos);
                firstListing = null;
                List<String> sorted = ZooKeeperLockQueue.sorted(listing);
                int index = sorted.indexOf(own.node());
                if (index < 0) {
                    throw new LockUnavailableException(describe(request.name()) + ": the queue node " + own.path()
                            + " vanished while waiting (the ZooKeeper session expired); retry");
                }
                List<String> blocking = ZooKeeperLockQueue.blockers(sorted, index, ownIsRead);
                if (blocking.isEmpty()) {
                    return Optional.of(grant(request, own));
                }
                if (timeoutNanos == 0) {
                    return Optional.empty();
                }
                // Watch the nearest blocker and the one before it. Blockers only ever go (nodes join
                // behind us), so the nearest one's deletion means we hold when it was the only blocker
                // left, or when the one before it was the first and has gone too; when only the one
                // before goes, and it was not the first, we list again early, while the nearest still
                // blocks, to learn whether its deletion will hand the lock over without a listing.
                // A watch already set in this wait is not set again.
                String nearest = lockPath + "/" + blocking.get(blocking.size() - 1);
                String before = blocking.size() >= 2 ? lockPath + "/" + blocking.get(blocking.size() - 2) : null;
                boolean beforeIsFirst = blocking.size() == 2;
                if (!watch(request.name(), nearest, signal)
                        || (before != null && !watch(request.name(), before, signal))) {
                    continue;
                }
                while (true) {
                    // close() sets the flag before it wakes waiters: a close is either seen here or
                    // wakes the wait below.
                    checkOpen(request.name());
                    long remaining = timeoutNanos < 0 ? Long.MAX_VALUE : timeoutNanos - (System.nanoTime() - start);
                    if (remaining <= 0) {
                        return Optional.empty();
                    }
                    if (!signal.await(nearest, before, remaining)) {
                        return Optional.empty();
                    }
                    if (signal.takeChanged()) {
                        break; // list again
                    }
                    boolean beforeGone = before != null && signal.isGone(before);
                    if (signal.isGone(nearest)) {
                        if (before == null || (beforeGone && beforeIsFirst)) {
                            checkOpen(request.name());
                            return Optional.of(grant(request, own));
                        }
                        break;
                    }
                    if (!beforeIsFirst) {
                        break;
                    }
                    // The first blocker went: the nearest is the last one; keep waiting for it alone.
                    before = null;
                }
            }
        } finally {
            waiters.remove(signal);
        }
    }

    /**
     * Sets the wait's watch on {@code path} unless it is set already; false if the node is already
     * gone (and then recorded so).
     */
    private boolean watch(String lockName, String path, WaitSignal signal) throws InterruptedException {
        if (!signal.arm(path)) {
            return !signal.isGone(path);
        }
        try {
            bounded(
                    lockName,
                    "watching the predecessor",
                    System.nanoTime() + operationTimeoutNanos,
                    () -> curator.getData().usingWatcher(signal).forPath(path));
            return true;
        } catch (NoNodeRuntime e) {
            signal.gone(path);
            return false;
        } catch (RuntimeException | InterruptedException e) {
            signal.disarm(path);
            throw e;
        }
    }

    private Grant grant(LockRequest request, QueueNode own) {
        HeldNode node = new HeldNode(request.name(), own.path(), request.leaseTime());
        if (suspended && !uri.waitForReconnect()) {
            node.lost = true;
        }
        held.add(node);
        node.scheduleExpiry(System.nanoTime() + request.leaseTime().toNanos());
        return new Grant(
                request.name(),
                request.ownerId(),
                request.mode(),
                own.czxid(),
                Instant.now().plus(request.leaseTime()),
                node);
    }

    // ---------------------------------------------------------------- renew, release

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        HeldNode node = (HeldNode) grant.backendState();
        if (node == null || node.lost || node.expired) {
            return Optional.empty();
        }
        if (suspended) {
            throw new LockUnavailableException(describe(grant.name())
                    + ": disconnected from ZooKeeper; waiting for the connection to come back within the session"
                    + " timeout (" + uri.sessionTimeout() + ")");
        }
        long sentAt = System.nanoTime();
        Stat stat;
        try {
            stat = bounded(grant.name(), "renewing", sentAt + operationTimeoutNanos, () -> curator.checkExists()
                    .forPath(node.path));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(describe(grant.name()) + ": interrupted while renewing", e);
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
        held.remove(node);
        node.cancelExpiry();
        boolean wasValid = !node.lost && !node.expired;
        try {
            return delete(grant.name(), node.path, System.nanoTime() + operationTimeoutNanos) && wasValid;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(
                    describe(grant.name()) + ": interrupted while releasing; ZooKeeper removes the node when the"
                            + " session ends",
                    e);
        }
    }

    @Override
    public void abandon(LockRequest request) {
        String lockPath = ZooKeeperLockPaths.lockPath(uri.root(), request.name());
        boolean interrupted = Thread.interrupted();
        try {
            removeByPrefix(request.name(), lockPath, ZooKeeperLockQueue.protectionPrefix(request.ownerId()));
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void removeByPrefix(String lockName, String lockPath, String protection) throws InterruptedException {
        long deadline = System.nanoTime() + operationTimeoutNanos;
        for (String child : children(lockName, lockPath, deadline)) {
            if (child.startsWith(protection)) {
                delete(lockName, lockPath + "/" + child, deadline);
            }
        }
    }

    private void deleteQuietly(String lockName, String path) {
        boolean interrupted = Thread.interrupted();
        try {
            delete(lockName, path, System.nanoTime() + operationTimeoutNanos);
        } catch (InterruptedException e) {
            interrupted = true;
        } catch (RuntimeException e) {
            log.warn(
                    "{}: could not remove queue node {}; ZooKeeper removes it when the session ends: {}",
                    describe(lockName),
                    path,
                    e.toString());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Deletes {@code path}; false if it did not exist. One call on the connected handle; anything
     * but success or "no node" (a connection loss, say) goes through Curator's guaranteed delete,
     * which retries within {@code deadline} and otherwise keeps trying in the background.
     */
    private boolean delete(String lockName, String path, long deadline) throws InterruptedException {
        checkOpen(lockName);
        ZooKeeper zk = connectedHandle();
        if (zk != null) {
            try {
                zk.delete(namespace + path, -1);
                return true;
            } catch (KeeperException.NoNodeException e) {
                return false;
            } catch (KeeperException e) {
                log.debug("{}: deleting {} failed ({}); retrying through Curator", name, path, e.toString());
            }
        }
        try {
            bounded(lockName, "deleting the queue node", deadline, () -> {
                curator.delete().guaranteed().forPath(path);
                return null;
            });
            return true;
        } catch (NoNodeRuntime e) {
            return false;
        }
    }

    // ---------------------------------------------------------------- inspect

    @Override
    public Optional<LockInfo> inspect(String lockName) {
        String lockPath = ZooKeeperLockPaths.lockPath(uri.root(), lockName);
        long deadline = System.nanoTime() + operationTimeoutNanos;
        try {
            List<String> holders =
                    ZooKeeperLockQueue.holders(ZooKeeperLockQueue.sorted(children(lockName, lockPath, deadline)));
            List<String> owners = new ArrayList<>();
            long token = 0;
            for (String holder : holders) {
                Stat stat = new Stat();
                try {
                    byte[] data = bounded(lockName, "inspecting", deadline, () -> curator.getData()
                            .storingStatIn(stat)
                            .forPath(lockPath + "/" + holder));
                    owners.add(data == null ? holder : new String(data, StandardCharsets.UTF_8));
                    token = Math.max(token, stat.getCzxid());
                } catch (NoNodeRuntime e) {
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
            throw new LockUnavailableException(describe(lockName) + ": interrupted while inspecting", e);
        }
    }

    // ---------------------------------------------------------------- ZooKeeper calls

    private List<String> children(String lockName, String lockPath, long deadline) throws InterruptedException {
        try {
            return bounded(lockName, "listing the queue", deadline, () -> curator.getChildren()
                    .forPath(lockPath));
        } catch (NoNodeRuntime e) {
            return List.of();
        }
    }

    @FunctionalInterface
    private interface ZooKeeperCall<T> {
        T call() throws Exception;
    }

    /** Thrown by {@link #bounded} for a node that does not exist. */
    private static final class NoNodeRuntime extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoNodeRuntime() {
            super(null, null, false, false);
        }
    }

    /**
     * Runs one call, retrying after a connection loss while {@code deadline} allows (ZooKeeper calls
     * that failed with a connection loss may or may not have been applied: only idempotent calls go
     * through here; create has its own protection).
     */
    private <T> T bounded(String lockName, String what, long deadline, ZooKeeperCall<T> call)
            throws InterruptedException {
        while (true) {
            checkOpen(lockName);
            try {
                return call.call();
            } catch (KeeperException.NoNodeException e) {
                throw new NoNodeRuntime();
            } catch (KeeperException.ConnectionLossException
                    | KeeperException.OperationTimeoutException
                    | KeeperException.SessionMovedException
                    | KeeperException.SessionExpiredException e) {
                awaitConnection(lockName, what, deadline, e);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw failure(lockName, what, e);
            }
        }
    }

    private void awaitConnection(String lockName, String what, long deadline, Exception cause)
            throws InterruptedException {
        long remaining = deadline - System.nanoTime();
        if (closed) {
            checkOpen(lockName);
        }
        if (remaining <= 0
                || !curator.blockUntilConnected(
                        (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)), TimeUnit.MILLISECONDS)) {
            throw new LockUnavailableException(
                    describe(lockName) + ": ZooKeeper did not answer while " + what + " within the operation timeout ("
                            + Duration.ofNanos(operationTimeoutNanos) + "): " + cause
                            + "; check that a quorum of " + uri.connectString() + " is reachable",
                    cause);
        }
    }

    private LockUnavailableException failure(String lockName, String what, Exception e) {
        if (closed) {
            return closedException(lockName);
        }
        if (e instanceof LockUnavailableException unavailable) {
            return unavailable;
        }
        return new LockUnavailableException(
                describe(lockName) + ": ZooKeeper failed while " + what + ": " + e
                        + "; check the server log and the URI's credentials",
                e);
    }

    private void checkOpen(String lockName) {
        if (closed) {
            throw closedException(lockName);
        }
    }

    private LockUnavailableException closedException(String lockName) {
        return new LockUnavailableException(describe(lockName)
                + ": the client is closed; create a new client with Baton.connect to take locks again");
    }

    private String describe(String lockName) {
        return "Baton lock '" + lockName + "' on " + name;
    }

    // ---------------------------------------------------------------- connection state

    private void onConnectionState(ConnectionState state) {
        switch (state) {
            case SUSPENDED -> {
                suspended = true;
                if (!uri.waitForReconnect()) {
                    markAllLost("the connection to ZooKeeper was suspended");
                }
            }
            case LOST -> {
                suspended = true;
                markAllLost("the ZooKeeper session was lost");
                waiters.forEach(WaitSignal::wake);
            }
            case RECONNECTED -> {
                suspended = false;
                // Grants reported lost while disconnected may still have their node: remove it so that
                // the lock does not stay taken by a holder that was told it lost it.
                for (HeldNode node : held) {
                    if (node.lost) {
                        deleteInBackground(node.path);
                    }
                }
                waiters.forEach(WaitSignal::wake);
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
            log.warn("{}: {}; {} held lease(s) reported lost at their next renewal", name, why, count);
        }
    }

    private void deleteInBackground(String path) {
        try {
            curator.delete().guaranteed().inBackground().forPath(path);
        } catch (Exception e) {
            log.debug("{}: background delete of {} failed: {}", name, path, e.toString());
        }
    }

    private void sweepExpiredLeases() {
        long now = System.nanoTime();
        for (HeldNode node : held) {
            node.expireIfDue(now);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        waiters.forEach(WaitSignal::wake);
        leaseTimer.shutdownNow();
        // Closing the session removes every ephemeral node it still has.
        curator.close();
    }

    // ---------------------------------------------------------------- state classes

    /** A granted queue node: its lease deadline and whether it is known lost. */
    private final class HeldNode {
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

        void expireIfDue(long now) {
            state.lock();
            try {
                if (released || expired || deadlineNanos - now > 0) {
                    return;
                }
                expired = true;
                lost = true;
            } finally {
                state.unlock();
            }
            held.remove(this);
            log.info(
                    "{}: lease time {} ran out without renewal; deleting the node {}",
                    describe(lockName),
                    leaseTime,
                    path);
            deleteInBackground(path);
        }
    }

    /**
     * What a waiter waits for: a watch event of its current round. Each round (one listing of the
     * queue) gets its own watcher, so that events of watches set in earlier rounds are ignored.
     */
    /**
     * One waiter's view of the queue nodes it watches: one watcher for the whole wait (so a watch is
     * set once per node), the watched nodes seen deleted (queue nodes never come back), and whether
     * anything else happened that calls for listing the queue again.
     */
    private static final class WaitSignal implements Watcher {
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
}
