package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A waiter takes the lock on the deletion of its last blocker alone, without listing the queue
 * again: when its predecessor was the head, and when it watched the last two blockers and both went.
 * The waiter's ZooKeeper handle counts its listings and reads: a hand-off costs no read to confirm
 * the waiter's node, since the answer to the read that set its watch proves the node's session alive.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperHandOverTest extends OneServerTestBase {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(10))
            .operationTimeout(Duration.ofSeconds(5))
            .build();
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How long a waiter may take to list the queue and set its watches. */
    private static final Duration WATCHES_SET = KitTime.grant(Duration.ofSeconds(5));

    /** A ZooKeeper handle that counts the listings and the data reads (watches) made through it. */
    static final class CountingZooKeeper extends ZooKeeper {
        final AtomicInteger listings = new AtomicInteger();
        final AtomicInteger reads = new AtomicInteger();
        final AtomicInteger existsReads = new AtomicInteger();

        CountingZooKeeper(String connect, int sessionTimeout, Watcher watcher, boolean readOnly) throws IOException {
            super(connect, sessionTimeout, watcher, readOnly);
        }

        @Override
        public List<String> getChildren(String path, boolean watch, Stat stat)
                throws KeeperException, InterruptedException {
            listings.incrementAndGet();
            return super.getChildren(path, watch, stat);
        }

        @Override
        public List<String> getChildren(String path, Watcher watcher, Stat stat)
                throws KeeperException, InterruptedException {
            listings.incrementAndGet();
            return super.getChildren(path, watcher, stat);
        }

        @Override
        public Stat exists(String path, Watcher watcher) throws KeeperException, InterruptedException {
            existsReads.incrementAndGet();
            return super.exists(path, watcher);
        }

        @Override
        public byte[] getData(String path, boolean watch, Stat stat) throws KeeperException, InterruptedException {
            byte[] data = super.getData(path, watch, stat);
            reads.incrementAndGet(); // counted once the server has the watch
            return data;
        }

        @Override
        public byte[] getData(String path, Watcher watcher, Stat stat) throws KeeperException, InterruptedException {
            byte[] data = super.getData(path, watcher, stat);
            reads.incrementAndGet();
            return data;
        }
    }

    private record Client(ZooKeeperLockBackend backend, AtomicReference<CountingZooKeeper> zk) {
        int listings() {
            return zk.get().listings.get();
        }

        int reads() {
            return zk.get().reads.get();
        }

        int existsReads() {
            return zk.get().existsReads.get();
        }
    }

    private Client client() throws InterruptedException {
        AtomicReference<CountingZooKeeper> handle = new AtomicReference<>();
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(server.connectString())
                .sessionTimeoutMs(10_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryNTimes(0, 0))
                .zookeeperFactory((connect, timeout, watcher, readOnly) -> {
                    CountingZooKeeper zk = new CountingZooKeeper(connect, timeout, watcher, readOnly);
                    handle.set(zk);
                    return zk;
                })
                .build();
        curator.start();
        ZooKeeperLockBackend backend =
                new ZooKeeperLockBackend(ZooKeeperUri.parse("zookeeper://" + server.connectString()), OPTIONS, curator);
        resources.add(backend);
        assertThat(curator.blockUntilConnected((int) KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        return new Client(backend, handle);
    }

    private static LockRequest request(String name) {
        return LockRequest.builder(name, UUID.randomUUID().toString(), LockKind.MUTEX, Duration.ofSeconds(10))
                .build();
    }

    private Future<Optional<Grant>> acquireInThread(Client client, String name) {
        return threads.submit(() -> InLine.acquire(client.backend(), request(name), WAIT_NANOS));
    }

    @Test
    void aWaiterBehindTheHeadTakesTheLockOnItsDeletionWithoutListingAgain() throws Exception {
        String name = "behind-head-" + UUID.randomUUID();
        Client holder = client();
        Client waiter = client();
        Grant first = holder.backend().tryAcquire(request(name)).orElseThrow();

        Future<Optional<Grant>> waiting = acquireInThread(waiter, name);
        Await.condition("the waiter watches the head", WATCHES_SET, () -> waiter.reads() >= 1);
        int listings = waiter.listings();
        assertThat(listings).as("the waiter listed the queue once, on joining").isEqualTo(1);

        assertThat(holder.backend().release(first)).isTrue();
        Grant second = Await.result(waiting, KitTime.grant()).orElseThrow();

        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(waiter.listings()).as("listings after the hand-over").isEqualTo(listings);
        assertThat(waiter.existsReads())
                .as("reads to confirm the node after the hand-over (the watch read's answer is the proof)")
                .isZero();
        assertThat(waiter.backend().release(second)).isTrue();
    }

    @Test
    void aWaiterTwoPlacesBackTakesTheLockWhenBothBlockersGoWithoutListingAgain() throws Exception {
        String name = "two-back-" + UUID.randomUUID();
        Client holder = client();
        Client middle = client();
        Client last = client();
        Grant first = holder.backend().tryAcquire(request(name)).orElseThrow();

        Future<Optional<Grant>> middleWaiting = acquireInThread(middle, name);
        Await.condition("the middle waiter watches the head", WATCHES_SET, () -> middle.reads() >= 1);
        Future<Optional<Grant>> lastWaiting = acquireInThread(last, name);
        Await.condition("the last waiter watches both nodes ahead", WATCHES_SET, () -> last.reads() >= 2);
        int listings = last.listings();
        assertThat(listings)
                .as("the last waiter listed the queue once, on joining")
                .isEqualTo(1);

        assertThat(holder.backend().release(first)).isTrue();
        Grant second = Await.result(middleWaiting, KitTime.grant()).orElseThrow();
        assertThat(lastWaiting)
                .as("the last waiter still waits behind the new holder")
                .isNotDone();
        assertThat(middle.backend().release(second)).isTrue();
        Grant third = Await.result(lastWaiting, KitTime.grant()).orElseThrow();

        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
        assertThat(last.listings())
                .as("the last waiter's listings after both hand-overs")
                .isEqualTo(listings);
        assertThat(last.reads()).as("no watch set again").isEqualTo(2);
        assertThat(last.existsReads())
                .as("reads to confirm the node after the hand-overs (the watch reads' answers are the proof)")
                .isZero();
        assertThat(last.backend().release(third)).isTrue();
    }

    @Test
    void anAttemptDecidesOnWhatTheWatchesSawSoAMissedWakeOnlyDelaysTheWaiter() throws Exception {
        String name = "missed-wake-" + UUID.randomUUID();
        Client holder = client();
        Client waiter = client();
        Grant first = holder.backend().tryAcquire(request(name)).orElseThrow();
        // The wake is never acted on: only attempts, as the core's fallback makes them, find the turn.
        WaitQueue.Entry entry = waiter.backend().waiting(LockKind.MUTEX).queue().enter(request(name), () -> {});
        assertThat(entry.grantedOnEntry()).isEmpty();
        int requests = waiter.listings() + waiter.reads() + waiter.existsReads();

        assertThat(entry.attempt()).as("an attempt while the holder holds").isEmpty();
        assertThat(waiter.listings() + waiter.reads() + waiter.existsReads())
                .as("requests of an attempt that no watch event preceded")
                .isEqualTo(requests);

        assertThat(holder.backend().release(first)).isTrue();
        AtomicReference<Grant> second = new AtomicReference<>();
        Await.condition("an attempt after the holder's release takes the turn", WATCHES_SET, () -> entry.attempt()
                .map(grant -> {
                    second.set(grant);
                    return true;
                })
                .orElse(false));

        assertThat(second.get().fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(waiter.listings())
                .as("listings: the watch's record decided, not a listing")
                .isEqualTo(1);
        assertThat(waiter.backend().release(second.get())).isTrue();
    }
}
