package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.tck.KitTime;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The requests an uncontended permit costs, as the client's ZooKeeper handle sends them: join the
 * mutex (one multi), the count's read sent ahead of the lease's multi (one round trip for both),
 * leave the mutex (one delete); the release is one delete.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperSemaphoreCallsTest extends OneServerTestBase {

    /** A ZooKeeper handle that records every request this backend sends, by kind and path. */
    static final class RecordingZooKeeper extends ZooKeeper {
        final ConcurrentLinkedQueue<String> requests = new ConcurrentLinkedQueue<>();

        RecordingZooKeeper(String connect, int sessionTimeout, Watcher watcher, boolean readOnly) throws IOException {
            super(connect, sessionTimeout, watcher, readOnly);
        }

        @Override
        public List<OpResult> multi(Iterable<Op> ops) throws InterruptedException, KeeperException {
            List<String> paths = new ArrayList<>();
            ops.forEach(op -> paths.add(op.getPath()));
            requests.add("multi " + paths);
            return super.multi(ops);
        }

        @Override
        public String create(
                String path,
                byte[] data,
                List<org.apache.zookeeper.data.ACL> acl,
                org.apache.zookeeper.CreateMode mode,
                Stat stat,
                long ttl)
                throws KeeperException, InterruptedException {
            requests.add("create " + path);
            return super.create(path, data, acl, mode, stat, ttl);
        }

        @Override
        public void delete(String path, int version) throws InterruptedException, KeeperException {
            requests.add("delete " + path);
            super.delete(path, version);
        }

        @Override
        public byte[] getData(String path, Watcher watcher, Stat stat) throws KeeperException, InterruptedException {
            requests.add("getData " + path);
            return super.getData(path, watcher, stat);
        }

        @Override
        public void getData(String path, boolean watch, AsyncCallback.DataCallback cb, Object ctx) {
            requests.add("getData " + path);
            super.getData(path, watch, cb, ctx);
        }

        @Override
        public Stat setData(String path, byte[] data, int version) throws KeeperException, InterruptedException {
            requests.add("setData " + path);
            return super.setData(path, data, version);
        }

        @Override
        public List<String> getChildren(String path, Watcher watcher) throws KeeperException, InterruptedException {
            requests.add("getChildren " + path);
            return super.getChildren(path, watcher);
        }

        @Override
        public List<String> getChildren(String path, Watcher watcher, Stat stat)
                throws KeeperException, InterruptedException {
            requests.add("getChildren " + path);
            return super.getChildren(path, watcher, stat);
        }

        @Override
        public Stat exists(String path, Watcher watcher) throws KeeperException, InterruptedException {
            requests.add("exists " + path);
            return super.exists(path, watcher);
        }

        /** The requests sent since the last call, with node names shortened to their kind. */
        List<String> take() {
            List<String> taken = new ArrayList<>();
            for (String request; (request = requests.poll()) != null; ) {
                taken.add(request.replaceAll("_c_[0-9a-f-]{36}-(lock|lease)-(\\d{10})?", "<$1 node>"));
            }
            return taken;
        }
    }

    @Test
    void anUncontendedPermitIsThreeRoundTripsAndItsReleaseOne() throws Exception {
        RecordingZooKeeper[] handle = new RecordingZooKeeper[1];
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(server.connectString())
                .sessionTimeoutMs(10_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryNTimes(0, 0))
                .zookeeperFactory((connect, timeout, watcher, readOnly) -> {
                    handle[0] = new RecordingZooKeeper(connect, timeout, watcher, readOnly);
                    return handle[0];
                })
                .build();
        curator.start();
        assertThat(curator.blockUntilConnected((int) KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .operationTimeout(Duration.ofSeconds(5))
                .build();
        LockClient client = Baton.open(
                new ZooKeeperLockBackend(ZooKeeperUri.parse("zookeeper://" + server.connectString()), options, curator),
                options);
        resources.add(client);
        String name = "calls-" + UUID.randomUUID();
        String path = ZooKeeperPermits.semaphorePath("/baton/locks", name);
        DistributedSemaphore semaphore = client.semaphore(name, 2);
        semaphore.acquire(KitTime.grant()).close(); // creates the nodes and records the count
        handle[0].take();

        Lease lease = semaphore.acquire(KitTime.grant());
        assertThat(handle[0].take())
                .containsExactly(
                        "multi [" + path + "/locks/<lock node>, " + path + "/locks]",
                        "getData " + path,
                        "multi [" + path + "/leases/<lease node>, " + path + "/leases]",
                        "delete " + path + "/locks/<lock node>");
        lease.close();
        assertThat(handle[0].take()).containsExactly("delete " + path + "/leases/<lease node>");
    }
}
