package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.spi.ForwardingLockBackend;
import dev.baton.spi.Grant;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Renewal checks the session, not each node: once a lease's first renewal has set a watch on its
 * node, a client holding hundreds of locks renews them with no call on any held node, a held node deleted by another client is still reported lost, and neither a
 * release nor an expired session leaves a watch or a held node behind. The holder's ZooKeeper handle
 * records the path of every read it sends.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ZooKeeperRenewalTest extends OneServerTestBase {
    private static final Duration SESSION = Duration.ofSeconds(10);
    /** Short, so that a few renewal intervals (a third of it each) pass quickly. */
    private static final Duration LEASE = Duration.ofSeconds(1);

    private static final Duration SLACK = KitTime.SLACK;
    private static final String ROOT = "/baton/locks";
    /** Renewal calls a client has in flight at most (the core's LeaseRenewer). */
    private static final int IN_FLIGHT = 16;

    /**
     * A ZooKeeper handle that records the path of every read, existence check and listing (the
     * methods taking a boolean watch flag call these).
     */
    static final class RecordingZooKeeper extends ZooKeeper {
        final ConcurrentLinkedQueue<String> reads = new ConcurrentLinkedQueue<>();

        RecordingZooKeeper(String connect, int sessionTimeout, Watcher watcher, boolean readOnly) throws IOException {
            super(connect, sessionTimeout, watcher, readOnly);
        }

        RecordingZooKeeper(String connect, int sessionTimeout, Watcher watcher, long sessionId, byte[] password)
                throws IOException {
            super(connect, sessionTimeout, watcher, sessionId, password);
        }

        @Override
        public Stat exists(String path, Watcher watcher) throws KeeperException, InterruptedException {
            reads.add(path);
            return super.exists(path, watcher);
        }

        @Override
        public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb, Object ctx) {
            reads.add(path);
            super.exists(path, watcher, cb, ctx);
        }

        @Override
        public byte[] getData(String path, Watcher watcher, Stat stat) throws KeeperException, InterruptedException {
            reads.add(path);
            return super.getData(path, watcher, stat);
        }

        @Override
        public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb, Object ctx) {
            reads.add(path);
            super.getData(path, watcher, cb, ctx);
        }

        @Override
        public List<String> getChildren(String path, Watcher watcher, Stat stat)
                throws KeeperException, InterruptedException {
            reads.add(path);
            return super.getChildren(path, watcher, stat);
        }

        /** The paths this handle holds a data watch on (set by getData). */
        List<String> dataWatches() {
            return getDataWatches();
        }
    }

    /** The backend as the core sees it, counting the renewal calls and the grants in them. */
    static final class CountingRenewals extends ForwardingLockBackend {
        final ZooKeeperLockBackend backend;
        final AtomicLong calls = new AtomicLong();
        final AtomicLong grants = new AtomicLong();

        CountingRenewals(ZooKeeperLockBackend backend) {
            super(backend);
            this.backend = backend;
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            calls.incrementAndGet();
            grants.incrementAndGet();
            return super.renew(grant, leaseTime);
        }

        @Override
        public List<Optional<Grant>> renewAll(List<Grant> renewed, Duration leaseTime) {
            calls.incrementAndGet();
            grants.addAndGet(renewed.size());
            return super.renewAll(renewed, leaseTime);
        }
    }

    private record Holder(
            ZooKeeperLockBackend backend,
            CountingRenewals renewals,
            LockClient client,
            AtomicReference<RecordingZooKeeper> zk) {
        /** Reads sent so far on paths under {@code lockPathPrefix}: the held locks' nodes. */
        long readsUnder(String lockPathPrefix) {
            return zk.get().reads.stream()
                    .filter(p -> p.startsWith(lockPathPrefix))
                    .count();
        }

        int reads() {
            return zk.get().reads.size();
        }
    }

    private Holder holder() throws InterruptedException {
        AtomicReference<RecordingZooKeeper> handle = new AtomicReference<>();
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(server.connectString())
                .sessionTimeoutMs((int) SESSION.toMillis())
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryNTimes(0, 0))
                .zookeeperFactory((connect, timeout, watcher, readOnly) -> {
                    RecordingZooKeeper zk = new RecordingZooKeeper(connect, timeout, watcher, readOnly);
                    handle.set(zk);
                    return zk;
                })
                .build();
        curator.start();
        LockOptions options = LockOptions.builder()
                .leaseTime(LEASE)
                .operationTimeout(Duration.ofSeconds(5))
                .build();
        ZooKeeperLockBackend backend = new ZooKeeperLockBackend(
                ZooKeeperUri.parse(
                        "zookeeper://" + server.connectString() + "?sessionTimeout=" + SESSION.toMillis() + "ms"),
                options,
                curator);
        CountingRenewals renewals = new CountingRenewals(backend);
        LockClient client = Baton.open(renewals, options);
        resources.add(client);
        assertThat(curator.blockUntilConnected((int) KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        return new Holder(backend, renewals, client, handle);
    }

    private CuratorFramework admin() throws InterruptedException {
        CuratorFramework admin = CuratorFrameworkFactory.newClient(server.connectString(), new RetryNTimes(3, 100));
        admin.start();
        resources.add(admin);
        assertThat(admin.blockUntilConnected((int) KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        return admin;
    }

    /**
     * Leases one holder took on {@code count} fresh names under one prefix, with the path prefix of
     * their lock nodes and when each was reported lost.
     */
    private record Held(Holder holder, String lockPathPrefix, List<Lease> leases, Map<String, Long> lost) {
        /** The holder's data watches on these locks' nodes. */
        long watches() {
            return holder.zk().get().dataWatches().stream()
                    .filter(p -> p.startsWith(lockPathPrefix))
                    .count();
        }
    }

    private Held hold(String kind, int count) throws InterruptedException {
        Holder holder = holder();
        String prefix = kind + "-" + UUID.randomUUID() + "-";
        Map<String, Long> lost = new ConcurrentHashMap<>();
        List<Lease> leases = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Lease lease = holder.client().lock(prefix + i).acquire(KitTime.grant(Duration.ofSeconds(5)));
            lease.onLost(e -> lost.putIfAbsent(lease.name(), System.nanoTime()));
            leases.add(lease);
        }
        return new Held(holder, ZooKeeperLockPaths.lockPath(ROOT, prefix), leases, lost);
    }

    @Test
    void fiveHundredHeldLocksAreRenewedWithoutACallOnAnyHeldNode() throws Exception {
        int count = 500;
        Held held = hold("scale", count);
        Holder holder = held.holder();
        String lockPathPrefix = held.lockPathPrefix();
        List<Lease> leases = held.leases();
        Map<String, Long> lost = held.lost();
        // Each lease's first renewal sets a watch on its node (one read per node, once).
        Await.condition(
                "a watch on every held node",
                LEASE.plus(SLACK),
                () -> held.watches() == count,
                () -> "; watches " + held.watches());
        long readsOnHeldNodes = holder.readsUnder(lockPathPrefix);
        int reads = holder.reads();
        long calls = holder.renewals().calls.get();
        long renewed = holder.renewals().grants.get();

        // Three lease periods: about nine renewals of every lease, each of which must have
        // succeeded, or its lease would have run out.
        long until = System.nanoTime() + LEASE.multipliedBy(3).toNanos();
        while (System.nanoTime() - until < 0) {
            assertThat(lost).as("leases reported lost").isEmpty();
            assertThat(leases).allMatch(Lease::isValid);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        assertThat(lost).as("leases reported lost").isEmpty();
        leases.forEach(Lease::checkValid);
        long renewalCalls = holder.renewals().calls.get() - calls;
        assertThat(holder.renewals().grants.get() - renewed)
                .as("grants renewed in %d renewal calls", renewalCalls)
                .isGreaterThanOrEqualTo(count * 3L);
        assertThat(holder.readsUnder(lockPathPrefix) - readsOnHeldNodes)
                .as("calls on held nodes while renewing %d leases for three lease periods", count)
                .isZero();
        // Calls that were in flight when counting began may have sent their round trip after it.
        assertThat((long) holder.reads() - reads)
                .as("ZooKeeper calls in %d renewal calls (one round trip each)", renewalCalls)
                .isLessThanOrEqualTo(renewalCalls + IN_FLIGHT);
        leases.forEach(Lease::close);
    }

    @Test
    void aHeldNodeDeletedByAnotherClientIsReportedLostToItsHolder() throws Exception {
        Held held = hold("deleted", 3);
        Holder holder = held.holder();
        Map<String, Long> lost = held.lost();
        List<Lease> leases = held.leases();
        CuratorFramework admin = admin();
        Lease victim = leases.get(1);
        String lockPath = ZooKeeperLockPaths.lockPath(ROOT, victim.name());
        List<String> nodes = admin.getChildren().forPath(lockPath);
        assertThat(nodes).hasSize(1);

        long deletedAt = System.nanoTime();
        admin.delete().forPath(lockPath + "/" + nodes.get(0));
        // Reported at the next renewal: within a renewal interval (a third of the lease) and slack.
        Await.condition(
                "the holder to be told that its deleted node is lost",
                LEASE.dividedBy(3).plus(SLACK),
                () -> lost.containsKey(victim.name()));
        assertThat(victim.isValid()).isFalse();
        assertThatThrownBy(victim::checkValid).isInstanceOf(LockLostException.class);
        assertThat(lost.get(victim.name()) - deletedAt).isPositive();
        assertThat(holder.backend().heldNodeCount())
                .as("held nodes known to the backend")
                .isEqualTo(2);

        // The others are still held and renewed: one more lease period.
        long until = System.nanoTime() + LEASE.toNanos();
        while (System.nanoTime() - until < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        assertThat(lost.keySet()).containsExactly(victim.name());
        leases.get(0).checkValid();
        leases.get(2).checkValid();
        victim.close();
        assertThat(holder.client().lock(victim.name()).tryAcquire())
                .as("the lock whose node was deleted is free again")
                .isPresent()
                .get()
                .satisfies(Lease::close);
        leases.forEach(Lease::close);
    }

    @Test
    void releasingLeavesNoWatchAndNoHeldNodeBehind() throws Exception {
        Held held = hold("released", 50);
        ZooKeeperLockBackend backend = held.holder().backend();
        Await.condition(
                "a watch on every held node", SLACK, () -> held.watches() == 50, () -> "; watches " + held.watches());
        assertThat(backend.heldNodeCount()).isEqualTo(50);

        held.leases().forEach(Lease::close);
        assertThat(backend.heldNodeCount()).as("held nodes after release").isZero();
        Await.condition(
                "the released nodes' watches to be gone",
                SLACK,
                () -> held.watches() == 0,
                () -> "; watches " + held.watches());
    }

    @Test
    void anExpiredSessionReportsEveryLeaseLostAndLeavesNoHeldNodeBehind() throws Exception {
        Held held = hold("expired", 20);
        Holder holder = held.holder();
        List<Lease> leases = held.leases();
        Map<String, Long> lost = held.lost();

        // Closing a second handle on the same session ends the session on the server.
        ZooKeeper holderHandle = holder.zk().get();
        CountDownLatch attached = new CountDownLatch(1);
        ZooKeeper sameSession = new ZooKeeper(
                server.connectString(),
                (int) SESSION.toMillis(),
                event -> {
                    if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                        attached.countDown();
                    }
                },
                holderHandle.getSessionId(),
                holderHandle.getSessionPasswd());
        Await.condition("attached to the session", KitTime.grant(), () -> attached.getCount() == 0);
        sameSession.close();

        Await.condition(
                "every lease of the expired session to be reported lost",
                LEASE.plus(SLACK),
                () -> lost.size() == leases.size(),
                () -> "; reported " + lost.size());
        assertThat(leases).noneMatch(Lease::isValid);
        Await.condition(
                "no held node and no watch left of the expired session",
                SLACK,
                () -> holder.backend().heldNodeCount() == 0 && held.watches() == 0);
        leases.forEach(Lease::close); // never throws for lost leases
        LockClient other = Baton.connect("zookeeper://" + server.connectString(), LockOptions.defaults());
        resources.add(other);
        assertThat(other.lock(leases.get(0).name()).tryAcquire())
                .as("the expired session's lock is free")
                .isPresent()
                .get()
                .satisfies(Lease::close);
    }
}
