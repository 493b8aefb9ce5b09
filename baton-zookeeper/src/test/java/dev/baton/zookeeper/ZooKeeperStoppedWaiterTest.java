package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import dev.baton.testsupport.TcpProxy;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A waiter stopped (as by SIGSTOP, or a long GC pause) right after an answer came in, until its
 * session expired and another client took the lock, must not take the lock on that answer when it
 * runs again (`baton check --faults pause` found such overlaps). The stop is played deterministically:
 * the waiter's thread is held right after the answer, at the point the test names, while its link is
 * held back through a proxy, so that the server hears nothing from the session and expires it, which
 * the test sees when the next client is granted; then the link and the thread run again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperStoppedWaiterTest extends OneServerTestBase {
    /** The server's shortest session (two ticks): the session expires soon after the link is held. */
    private static final Duration SESSION = Duration.ofMillis(1000);

    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(5);

    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(10))
            .operationTimeout(OPERATION_TIMEOUT)
            .build();
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** Points after an answer (or an event) where the waiter's thread can be held. */
    static final class Stops {
        private final Map<String, Stop> armed = new ConcurrentHashMap<>();

        Stop arm(String point) {
            Stop stop = new Stop(point);
            armed.put(point, stop);
            return stop;
        }

        void at(String point) {
            Stop stop = armed.remove(point);
            if (stop != null) {
                stop.hold();
            }
        }
    }

    /** One stop: the thread that reaches it waits until the test lets it go. */
    static final class Stop {
        private final String point;
        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch go = new CountDownLatch(1);

        Stop(String point) {
            this.point = point;
        }

        void hold() {
            reached.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void awaitReached() throws InterruptedException {
            Await.condition(
                    "the waiter to reach the stop after " + point, KitTime.grant(), () -> reached.getCount() == 0);
        }

        void release() {
            go.countDown();
        }
    }

    /**
     * A ZooKeeper handle that holds its caller at an armed stop right after the answer to a multi
     * ("multi") or a listing ("children") came in, or its event thread before it delivers a node's
     * deletion to a watcher ("deleted"); it counts the data reads that set watches.
     */
    static final class StoppableZooKeeper extends ZooKeeper {
        private final Stops stops;
        private final AtomicInteger watchReads;

        StoppableZooKeeper(
                String connect, int sessionTimeout, Watcher watcher, boolean readOnly, Stops stops, AtomicInteger reads)
                throws IOException {
            super(connect, sessionTimeout, watcher, readOnly);
            this.stops = stops;
            this.watchReads = reads;
        }

        @Override
        public List<OpResult> multi(Iterable<Op> ops) throws InterruptedException, KeeperException {
            List<OpResult> results = super.multi(ops);
            stops.at("multi");
            return results;
        }

        @Override
        public List<String> getChildren(String path, Watcher watcher) throws KeeperException, InterruptedException {
            List<String> children = super.getChildren(path, watcher);
            stops.at("children");
            return children;
        }

        @Override
        public List<String> getChildren(String path, Watcher watcher, Stat stat)
                throws KeeperException, InterruptedException {
            List<String> children = super.getChildren(path, watcher, stat);
            stops.at("children");
            return children;
        }

        @Override
        public byte[] getData(String path, Watcher watcher, Stat stat) throws KeeperException, InterruptedException {
            Watcher late = watcher == null
                    ? null
                    : event -> {
                        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                            stops.at("deleted");
                        }
                        watcher.process(event);
                    };
            byte[] data = super.getData(path, late, stat);
            watchReads.incrementAndGet();
            return data;
        }
    }

    /** The client that is stopped: its backend, its stops, its proxy, its watch reads. */
    private record Stoppable(ZooKeeperLockBackend backend, Stops stops, TcpProxy link, AtomicInteger watchReads) {}

    private Stoppable stoppable() throws InterruptedException {
        TcpProxy link = TcpProxy.start(server.address(0));
        resources.add(link);
        Stops stops = new Stops();
        AtomicInteger reads = new AtomicInteger();
        String connect = link.address().getHostString() + ":" + link.address().getPort();
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs((int) SESSION.toMillis())
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryNTimes(0, 0))
                .zookeeperFactory((c, timeout, watcher, readOnly) ->
                        new StoppableZooKeeper(c, timeout, watcher, readOnly, stops, reads))
                .build();
        curator.start();
        ZooKeeperLockBackend backend = new ZooKeeperLockBackend(
                ZooKeeperUri.parse("zookeeper://" + connect + "?sessionTimeout=" + SESSION.toMillis() + "ms"),
                OPTIONS,
                curator);
        resources.add(backend);
        assertThat(curator.blockUntilConnected((int) KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        return new Stoppable(backend, stops, link, reads);
    }

    private ZooKeeperLockBackend direct() throws InterruptedException {
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(server.connectString())
                .sessionTimeoutMs(10_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryNTimes(0, 0))
                .build();
        curator.start();
        ZooKeeperLockBackend backend =
                new ZooKeeperLockBackend(ZooKeeperUri.parse("zookeeper://" + server.connectString()), OPTIONS, curator);
        resources.add(backend);
        assertThat(curator.blockUntilConnected((int) KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        return backend;
    }

    private static LockRequest request(String name) {
        return LockRequest.builder(name, UUID.randomUUID().toString(), LockKind.MUTEX, Duration.ofSeconds(10))
                .build();
    }

    private Future<Optional<Grant>> acquireInThread(ZooKeeperLockBackend backend, String name) {
        return threads.submit(() -> InLine.acquire(backend, request(name), WAIT_NANOS));
    }

    /**
     * The stop itself: the waiter's link is held back until its session expired, which shows when
     * {@code next} (queued behind it) is granted; then the link delivers again.
     */
    private static Grant stopUntilTheSessionExpired(Stoppable waiter, Future<Optional<Grant>> next) throws Exception {
        waiter.link().pause();
        try {
            // The session's expiry, the next client's watch and its request, then a grant.
            Duration freed = KitTime.bound(SESSION.plus(OPERATION_TIMEOUT).plus(KitTime.TAKE_OVER));
            return Await.result(next, freed).orElseThrow(() -> new AssertionError("the next client was not granted"));
        } finally {
            waiter.link().resume();
        }
    }

    /**
     * The stopped waiter's attempt, once it ran again: it must not hold the lock that {@code holder}
     * holds; it fails (its node went with its session) or comes back empty.
     */
    private static void assertNotGranted(Future<Optional<Grant>> stopped, Grant holder) throws Exception {
        Optional<Grant> outcome;
        try {
            outcome = Await.result(stopped, KitTime.grant(OPERATION_TIMEOUT));
        } catch (ExecutionException e) {
            assertThat(e.getCause())
                    .as("how the stopped waiter's attempt failed")
                    .isInstanceOf(LockUnavailableException.class);
            return;
        }
        assertThat(outcome)
                .as(
                        "the stopped waiter was granted the lock while another client holds it (token %d)",
                        holder.fencingToken())
                .isEmpty();
    }

    @Test
    void aWaiterStoppedAfterJoiningAnEmptyQueueDoesNotTakeTheLockOnThatAnswer() throws Exception {
        String name = "stopped-alone-" + UUID.randomUUID();
        Stoppable waiter = stoppable();
        ZooKeeperLockBackend next = direct();
        // Taken and released once, so that the lock node exists: the waiter then joins with one multi.
        assertThat(next.release(next.tryAcquire(request(name)).orElseThrow())).isTrue();
        Stop stop = waiter.stops().arm("multi");

        Future<Optional<Grant>> stopped = acquireInThread(waiter.backend(), name);
        stop.awaitReached(); // its node is first in the queue, and the answer says so
        Grant taken = stopUntilTheSessionExpired(waiter, acquireInThread(next, name));
        stop.release();

        assertNotGranted(stopped, taken);
        assertThat(next.release(taken)).isTrue();
    }

    @Test
    void aWaiterStoppedAfterAListingThatMadeItFirstDoesNotTakeTheLockOnThatListing() throws Exception {
        String name = "stopped-listing-" + UUID.randomUUID();
        Stoppable waiter = stoppable();
        ZooKeeperLockBackend holder = direct();
        ZooKeeperLockBackend next = direct();
        Grant first = holder.tryAcquire(request(name)).orElseThrow();
        Stop joined = waiter.stops().arm("multi");

        Future<Optional<Grant>> stopped = acquireInThread(waiter.backend(), name);
        joined.awaitReached(); // queued behind the holder
        assertThat(holder.release(first)).isTrue();
        Stop listed = waiter.stops().arm("children");
        joined.release();
        listed.awaitReached(); // the listing says the waiter's node is first
        Grant taken = stopUntilTheSessionExpired(waiter, acquireInThread(next, name));
        listed.release();

        assertNotGranted(stopped, taken);
        assertThat(next.release(taken)).isTrue();
    }

    @Test
    void aWaiterStoppedBeforeTheDeletionOfItsPredecessorReachedItDoesNotTakeTheLockOnThatEvent() throws Exception {
        String name = "stopped-event-" + UUID.randomUUID();
        Stoppable waiter = stoppable();
        ZooKeeperLockBackend holder = direct();
        ZooKeeperLockBackend next = direct();
        Grant first = holder.tryAcquire(request(name)).orElseThrow();

        Future<Optional<Grant>> stopped = acquireInThread(waiter.backend(), name);
        Await.condition(
                "the waiter watches the holder's node",
                KitTime.grant(OPERATION_TIMEOUT),
                () -> waiter.watchReads().get() >= 1);
        Stop deleted = waiter.stops().arm("deleted");
        assertThat(holder.release(first)).isTrue();
        deleted.awaitReached(); // the deletion reached the client; the waiter has not seen it yet
        Grant taken = stopUntilTheSessionExpired(waiter, acquireInThread(next, name));
        deleted.release();

        assertNotGranted(stopped, taken);
        assertThat(next.release(taken)).isTrue();
    }
}
