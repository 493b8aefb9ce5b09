package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Holder;
import dev.baton.Lease;
import dev.baton.LockAdmin;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Operators' view of nodes Baton did not write as it writes them now: Curator's own lock and lease
 * nodes (whose data is the client's IP address) and nodes of an older Baton (the owner id alone)
 * are listed without a description and with the owner id of their protection prefix, and a forced
 * release breaks them; Baton's own nodes carry the description after the owner id.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperOperatorInteropTest extends CuratorInteropTestBase {
    private static final Duration SHORT = KitTime.grant();

    private LockAdmin admin() {
        LockAdmin admin = Baton.admin("zookeeper://" + server.connectString() + "/" + NAMESPACE);
        resources.add(admin);
        return admin;
    }

    private static String ownerOfNode(String node) {
        return node.substring("_c_".length(), "_c_".length() + 36).replace("-", "");
    }

    @Test
    void aCuratorMutexIsListedWithItsOwnerAndBrokenByAForcedRelease() throws Exception {
        String prefix = "op-" + UUID.randomUUID() + "/";
        String name = prefix + "curator";
        String path = pathOf(ZooKeeperLockPaths.encode(name));
        CuratorFramework curator = curator();
        InterProcessMutex mutex = new InterProcessMutex(curator, path);
        assertThat(mutex.acquire(SHORT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        String node = curator.getChildren().forPath(path).get(0);
        Future<Long> waiter = threads.submit(() -> {
            try (Lease lease = baton().lock(name).acquire(WAIT)) {
                return lease.fencingToken();
            }
        });
        awaitQueued(curator, path, 2);

        LockAdmin admin = admin();
        assertThat(admin.listingMethod()).startsWith("walks the children of /baton/locks and /baton/locks/~semaphores");
        List<LockInfo> listed = admin.locks(prefix);
        assertThat(listed).hasSize(1);
        LockInfo info = listed.get(0);
        assertThat(info.name()).isEqualTo(name);
        assertThat(info.kind()).isEqualTo(LockKind.MUTEX);
        assertThat(info.waiters()).hasValue(1);
        Holder holder = info.holders().get(0);
        assertThat(holder.description()).isEmpty();
        assertThat(holder.ownerId()).isEqualTo(ownerOfNode(node));
        assertThat(holder.fencingToken())
                .isEqualTo(curator.checkExists().forPath(path + "/" + node).getCzxid());

        List<LockInfo> broken = admin.forceRelease(name, holder.ownerId());
        assertThat(broken).extracting(LockInfo::fencingToken).containsExactly(holder.fencingToken());
        assertThat(Await.result(waiter, KitTime.grant())).isGreaterThan(holder.fencingToken());
        assertThat(admin.locks(prefix)).isEmpty();
    }

    @Test
    void aNodeOfAnOlderBatonHoldingTheOwnerIdAloneIsListedWithoutADescription() throws Exception {
        String name = "op-old-" + UUID.randomUUID();
        String owner = UUID.randomUUID().toString().replace("-", "");
        String path = pathOf(name);
        CuratorFramework curator = curator();
        curator.create()
                .creatingParentContainersIfNeeded()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(
                        path + "/" + ZooKeeperLockQueue.nodePrefix(owner, LockKind.MUTEX),
                        owner.getBytes(StandardCharsets.UTF_8));

        LockInfo info = admin().status(name).orElseThrow();
        assertThat(info.holders()).extracting(Holder::ownerId).containsExactly(owner);
        assertThat(info.holders()).extracting(Holder::description).containsExactly("");
        assertThat(admin().forceRelease(name, owner)).hasSize(1);
        assertThat(curator.getChildren().forPath(path)).isEmpty();
    }

    @Test
    void batonWritesTheDescriptionAfterTheOwnerId() throws Exception {
        String name = "op-data-" + UUID.randomUUID();
        LockOptions named = LockOptions.builder().clientName("billing").build();
        try (Lease lease = Baton.connect("zookeeper://" + server.connectString() + "/" + NAMESPACE, named)
                        .lock(name)
                        .acquire(SHORT);
                LockAdmin admin = admin()) {
            CuratorFramework curator = curator();
            String node = curator.getChildren().forPath(pathOf(name)).get(0);
            String data = new String(curator.getData().forPath(pathOf(name) + "/" + node), StandardCharsets.UTF_8);
            Holder holder = admin.status(name).orElseThrow().holders().get(0);
            assertThat(data).isEqualTo(holder.ownerId() + "\n" + holder.description());
            assertThat(holder.description()).startsWith("billing on ");
            assertThat(holder.fencingToken()).isEqualTo(lease.fencingToken());
        }
    }

    @Test
    void aCuratorSemaphoreIsListedWithItsLeasesAsHolders() throws Exception {
        String name = "op-sem-" + UUID.randomUUID();
        CuratorFramework curator = curator();
        InterProcessSemaphoreV2 semaphore =
                new InterProcessSemaphoreV2(curator, ZooKeeperCuratorSemaphoreInteropTest.semaphorePathOf(name), 3);
        var leases = semaphore.acquire(2, SHORT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(leases).hasSize(2);

        List<LockInfo> listed = admin().locks(name);
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0).kind()).isEqualTo(LockKind.PERMIT);
        // Curator records no count: the holders are all there is to tell.
        assertThat(listed.get(0).permits()).isEqualTo(2);
        assertThat(listed.get(0).holders()).hasSize(2).allSatisfy(holder -> {
            assertThat(holder.ownerId()).matches("[0-9a-f]{32}");
            assertThat(holder.description()).isEmpty();
        });
        semaphore.returnAll(leases);
    }
}
