package dev.baton.zookeeper;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Finds held locks and semaphores for operators ({@link dev.baton.spi.LockBackend#list}, {@link
 * dev.baton.spi.LockBackend#inspect}, {@link dev.baton.spi.LockBackend#forceRelease}) by walking the
 * backend's own tree: the children of the root are the encoded lock names ({@link
 * ZooKeeperLockPaths}), the children of {@code <root>/~semaphores} the encoded semaphore names
 * ({@link ZooKeeperPermits}); names are decoded before the prefix is matched, and nodes that are not
 * an encoded name (another application's, Curator's own under another path) are skipped.
 *
 * <p>Per lock: the queue's holders are its first entry, or its read entries before the first
 * exclusive one ({@link ZooKeeperLockQueue#holders}); every other entry waits. Per semaphore: its
 * lease nodes hold a permit, but for the newest one while there are more leases than the permit
 * count (the mutex holder's, still waiting for a permit); its mutex queue's entries wait. The count
 * is the one Baton records in the semaphore node's data; a semaphore only Curator uses records
 * none, and then its holders are its leases and its permits their number. Holders come from the
 * nodes' data and names ({@link ZooKeeperNodeData}), tokens are the nodes' czxids, and the expiry is
 * one session timeout from now, the latest a holder's session can end without a heartbeat.
 *
 * <p>Cost: the reads are pipelined, in three waves however many locks there are (the root's
 * children; every queue; every holder node's data), on the connected handle, all within one
 * operation timeout; a connection loss starts the walk again after the connection is back, within
 * the same timeout.
 */
final class ZooKeeperLockListing {
    private final ZooKeeperCalls calls;
    private final String root;
    private final Duration sessionTimeout;

    ZooKeeperLockListing(ZooKeeperCalls calls, String root, Duration sessionTimeout) {
        this.calls = calls;
        this.root = root;
        this.sessionTimeout = sessionTimeout;
    }

    /** A holder, and the path of its node (inside Curator's namespace). */
    record HeldEntry(Holder holder, String path) {}

    /** One held lock or semaphore as found. */
    record Found(String name, LockKind kind, List<HeldEntry> holders, int permits, int waiters) {
        LockInfo info() {
            return LockInfo.of(
                            name, kind, holders.stream().map(HeldEntry::holder).toList())
                    .withPermits(permits)
                    .withWaiters(OptionalInt.of(waiters));
        }
    }

    /** Every held lock and semaphore whose name starts with {@code prefix}, sorted by name and kind. */
    List<LockInfo> list(String prefix) throws InterruptedException {
        return walk(prefix + "*", reads -> {
            CompletableFuture<List<String>> lockNodes = reads.children(root);
            CompletableFuture<List<String>> semaphoreNodes = reads.children(root + "/" + ZooKeeperPermits.SEMAPHORES);
            List<String> locks = names(reads.get(lockNodes), prefix);
            List<String> semaphores = names(reads.get(semaphoreNodes), prefix);
            return describe(reads, locks, semaphores).stream()
                    .map(Found::info)
                    .sorted(Comparator.comparing(LockInfo::name).thenComparing(LockInfo::kind))
                    .toList();
        });
    }

    /** How {@link #list} finds the locks, for {@code baton locks}. */
    String method() {
        return "walks the children of " + root + " and " + root + "/" + ZooKeeperPermits.SEMAPHORES
                + " (lock and semaphore names), then reads their queues and holder nodes, pipelined";
    }

    /** Lock {@code name} (not its semaphore), or empty when nobody holds it. */
    List<Found> lock(String name) throws InterruptedException {
        return walk(name, reads -> describe(reads, List.of(name), List.of()));
    }

    /** Lock {@code name} and semaphore {@code name}, as far as they are held. */
    List<Found> lockAndSemaphore(String name) throws InterruptedException {
        return walk(name, reads -> describe(reads, List.of(name), List.of(name)));
    }

    private static List<String> names(List<String> children, String prefix) {
        List<String> names = new ArrayList<>();
        for (String child : children) {
            String name = ZooKeeperLockPaths.decode(child);
            if (name != null && name.startsWith(prefix)) {
                names.add(name);
            }
        }
        return names;
    }

    /** What the reads of one semaphore found: its leases, its waiters' mutex queue, and its count. */
    private record SemaphoreReads(
            CompletableFuture<List<String>> leases,
            CompletableFuture<List<String>> mutex,
            CompletableFuture<NodeRead> count) {}

    /** One lock or semaphore whose holder nodes are being read. */
    private record Pending(
            String name,
            LockKind kind,
            String parent,
            List<String> nodes,
            List<CompletableFuture<NodeRead>> data,
            int permits,
            int waiters) {}

    private List<Found> describe(Reads reads, List<String> locks, List<String> semaphores) throws InterruptedException {
        Map<String, CompletableFuture<List<String>>> queues = new LinkedHashMap<>();
        for (String name : locks) {
            queues.put(name, reads.children(ZooKeeperLockPaths.lockPath(root, name)));
        }
        Map<String, SemaphoreReads> semaphoreReads = new LinkedHashMap<>();
        for (String name : semaphores) {
            String path = ZooKeeperPermits.semaphorePath(root, name);
            semaphoreReads.put(
                    name,
                    new SemaphoreReads(
                            reads.children(path + ZooKeeperPermits.LEASES),
                            reads.children(path + ZooKeeperPermits.LOCKS),
                            reads.data(path)));
        }
        List<Pending> pending = new ArrayList<>();
        for (Map.Entry<String, CompletableFuture<List<String>>> queue : queues.entrySet()) {
            List<String> sorted = ZooKeeperLockQueue.sorted(reads.get(queue.getValue()));
            List<String> holders = ZooKeeperLockQueue.holders(sorted);
            if (!holders.isEmpty()) {
                String parent = ZooKeeperLockPaths.lockPath(root, queue.getKey());
                pending.add(new Pending(
                        queue.getKey(),
                        kindOf(holders.get(0)),
                        parent,
                        holders,
                        holders.stream()
                                .map(node -> reads.data(parent + "/" + node))
                                .toList(),
                        1,
                        sorted.size() - holders.size()));
            }
        }
        for (Map.Entry<String, SemaphoreReads> semaphore : semaphoreReads.entrySet()) {
            SemaphoreReads read = semaphore.getValue();
            List<String> leases = ZooKeeperLockQueue.sorted(reads.get(read.leases()));
            int waiters = ZooKeeperLockQueue.sorted(reads.get(read.mutex())).size();
            NodeRead countNode = reads.get(read.count());
            int count = countNode == null ? -1 : ZooKeeperPermitCount.parseCount(countNode.data());
            List<String> holders = count > 0 && leases.size() > count ? leases.subList(0, leases.size() - 1) : leases;
            if (!holders.isEmpty()) {
                String parent = ZooKeeperPermits.semaphorePath(root, semaphore.getKey()) + ZooKeeperPermits.LEASES;
                pending.add(new Pending(
                        semaphore.getKey(),
                        LockKind.PERMIT,
                        parent,
                        holders,
                        holders.stream()
                                .map(node -> reads.data(parent + "/" + node))
                                .toList(),
                        count > 0 ? count : holders.size(),
                        waiters));
            }
        }
        Instant expiresAt = Instant.now().plus(sessionTimeout);
        List<Found> found = new ArrayList<>();
        for (Pending lock : pending) {
            List<HeldEntry> holders = new ArrayList<>();
            for (int i = 0; i < lock.nodes().size(); i++) {
                NodeRead node = reads.get(lock.data().get(i));
                if (node == null) {
                    continue; // released meanwhile
                }
                String name = lock.nodes().get(i);
                Holder holder = Holder.of(
                        ZooKeeperNodeData.ownerOf(name, node.data()),
                        ZooKeeperNodeData.description(node.data()),
                        node.stat().getCzxid(),
                        expiresAt);
                holders.add(new HeldEntry(holder, lock.parent() + "/" + name));
            }
            if (!holders.isEmpty()) {
                found.add(new Found(lock.name(), lock.kind(), holders, lock.permits(), lock.waiters()));
            }
        }
        return found;
    }

    private static LockKind kindOf(String node) {
        if (node.contains(ZooKeeperLockQueue.READ_MARKER)) {
            return LockKind.READ;
        }
        return node.contains(ZooKeeperLockQueue.WRITE_MARKER) ? LockKind.WRITE : LockKind.MUTEX;
    }

    /** A node's data and stat. */
    private record NodeRead(byte[] data, Stat stat) {}

    @FunctionalInterface
    private interface Walk<T> {
        T run(Reads reads) throws InterruptedException;
    }

    /** Thrown by {@link Reads#get} when the connection broke: the walk starts again. */
    private static final class Reconnect extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Reconnect(KeeperException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    private <T> T walk(String subject, Walk<T> walk) throws InterruptedException {
        long deadline = calls.deadline();
        while (true) {
            calls.checkOpen(subject);
            ZooKeeper zk = calls.connectedHandle();
            if (zk == null) {
                calls.awaitConnection(
                        subject, "listing locks", deadline, new KeeperException.ConnectionLossException());
                continue;
            }
            try {
                return walk.run(new Reads(zk, subject, deadline));
            } catch (Reconnect e) {
                calls.awaitConnection(subject, "listing locks", deadline, (Exception) e.getCause());
            }
        }
    }

    /** Asynchronous reads on one handle, awaited within one deadline. */
    private final class Reads {
        private final ZooKeeper zk;
        private final String subject;
        private final long deadline;

        Reads(ZooKeeper zk, String subject, long deadline) {
            this.zk = zk;
            this.subject = subject;
            this.deadline = deadline;
        }

        /** The children of {@code path}; empty if it does not exist. */
        CompletableFuture<List<String>> children(String path) {
            CompletableFuture<List<String>> answer = new CompletableFuture<>();
            zk.getChildren(
                    calls.namespace + path,
                    false,
                    (rc, p, ctx, children) -> {
                        KeeperException.Code code = KeeperException.Code.get(rc);
                        if (code == KeeperException.Code.OK) {
                            answer.complete(children);
                        } else if (code == KeeperException.Code.NONODE) {
                            answer.complete(List.of());
                        } else {
                            answer.completeExceptionally(KeeperException.create(code, p));
                        }
                    },
                    null);
            return answer;
        }

        /** The data and stat of {@code path}; null if it does not exist. */
        CompletableFuture<NodeRead> data(String path) {
            CompletableFuture<NodeRead> answer = new CompletableFuture<>();
            zk.getData(
                    calls.namespace + path,
                    false,
                    (rc, p, ctx, data, stat) -> {
                        KeeperException.Code code = KeeperException.Code.get(rc);
                        if (code == KeeperException.Code.OK) {
                            answer.complete(new NodeRead(data, stat));
                        } else if (code == KeeperException.Code.NONODE) {
                            answer.complete(null);
                        } else {
                            answer.completeExceptionally(KeeperException.create(code, p));
                        }
                    },
                    null);
            return answer;
        }

        <T> T get(CompletableFuture<T> answer) throws InterruptedException {
            try {
                return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                calls.checkOpen(subject);
                throw new LockUnavailableException(
                        calls.describe(subject) + ": ZooKeeper did not answer while listing locks within the operation"
                                + " timeout; check that a quorum is reachable, or list a narrower prefix",
                        e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof KeeperException keeper
                        && switch (keeper.code()) {
                            case CONNECTIONLOSS, OPERATIONTIMEOUT, SESSIONMOVED, SESSIONEXPIRED -> true;
                            default -> false;
                        }) {
                    throw new Reconnect(keeper);
                }
                throw calls.failure(subject, "listing locks", (Exception) e.getCause());
            }
        }
    }
}
