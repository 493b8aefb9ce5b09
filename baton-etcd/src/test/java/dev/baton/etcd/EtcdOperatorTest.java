package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Holder;
import dev.baton.Lease;
import dev.baton.LockAdmin;
import dev.baton.LockClient;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.servers.EtcdServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Operators' view beyond the kit: values written by an older version (kind and owner id, no
 * description) and many locks (more than one page of a listing), the value Baton writes now, and a
 * forced release that leaves the broken client's other grants, which share its etcd lease, alone.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdOperatorTest {
    private static final String NAMESPACE = "/ops";
    private static final String ROOT = "/baton/locks";
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(LEASE)
            .operationTimeout(Duration.ofSeconds(5))
            .build();
    private static EtcdServer server;
    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = EtcdServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void closeResources() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    private LockClient client(LockOptions options) {
        return track(Baton.connect(server.uri() + NAMESPACE, options));
    }

    private LockAdmin admin() {
        return track(Baton.admin(server.uri() + NAMESPACE, OPTIONS));
    }

    private Client etcd() {
        return track(Client.builder()
                .endpoints("http://" + server.endpoints().split(",")[0])
                .build());
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    @Test
    void aListReadsEveryPageAndValuesOfAnOlderVersion() throws Exception {
        String prefix = "old-" + UUID.randomUUID() + "/";
        Client etcd = etcd();
        long lease = etcd.getLeaseClient().grant(30).get().getID();
        PutOption onLease = PutOption.builder().withLeaseId(lease).build();
        int locks = 1005; // more than one page
        List<String> owners = new ArrayList<>();
        List<Op> puts = new ArrayList<>();
        for (int i = 0; i < locks; i++) {
            String owner = UUID.randomUUID().toString().replace("-", "");
            owners.add(owner);
            String key = NAMESPACE + ROOT + "/" + EtcdKeys.encode(prefix + String.format("%04d", i)) + "/t-0";
            puts.add(Op.put(bytes(key), bytes("mutex " + owner), onLease));
            if (puts.size() == 100 || i == locks - 1) {
                etcd.getKVClient().txn().Then(puts.toArray(Op[]::new)).commit().get();
                puts.clear();
            }
        }

        assertThat(admin().listingMethod()).startsWith("ranges over the keys under /baton/locks/<prefix>");
        List<LockInfo> listed = admin().locks(prefix);
        assertThat(listed).hasSize(locks);
        for (int i = 0; i < locks; i++) {
            LockInfo info = listed.get(i);
            assertThat(info.name()).isEqualTo(prefix + String.format("%04d", i));
            assertThat(info.kind()).isEqualTo(LockKind.MUTEX);
            assertThat(info.waiters()).hasValue(0);
            assertThat(info.holders()).extracting(Holder::ownerId).containsExactly(owners.get(i));
            assertThat(info.holders()).extracting(Holder::description).containsExactly("");
            assertThat(info.expiresAt()).isAfter(Instant.now());
        }
        etcd.getLeaseClient().revoke(lease).get();
        assertThat(admin().locks(prefix)).isEmpty();
    }

    @Test
    void batonWritesTheDescriptionAfterTheKindAndOwnerId() throws Exception {
        String name = "value-" + UUID.randomUUID();
        LockClient client = client(OPTIONS.toBuilder().clientName("billing").build());
        try (Lease held = client.lock(name).acquire(KitTime.grant())) {
            Holder holder = admin().status(name).orElseThrow().holders().get(0);
            List<KeyValue> kvs = etcd().getKVClient()
                    .get(
                            bytes(NAMESPACE + ROOT + "/" + EtcdKeys.encode(name) + "/"),
                            GetOption.builder().isPrefix(true).build())
                    .get()
                    .getKvs();
            assertThat(kvs).hasSize(1);
            assertThat(kvs.get(0).getValue().toString(StandardCharsets.UTF_8))
                    .isEqualTo("mutex " + holder.ownerId() + "\n" + holder.description());
            assertThat(holder.description()).startsWith("billing on ");
            assertThat(holder.fencingToken()).isEqualTo(held.fencingToken());
        }
    }

    @Test
    void aForcedReleaseLeavesTheOtherGrantsOnTheBrokenClientsLeaseAlone() throws Exception {
        String name = "forced-" + UUID.randomUUID();
        LockClient client = client(OPTIONS);
        Lease broken = client.lock(name).acquire(KitTime.grant());
        Lease kept = client.lock(name + "-kept").acquire(KitTime.grant());
        Lease permit = client.semaphore(name, 2).acquire(KitTime.grant());
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        broken.onLost(lost::complete);
        CompletableFuture<LockLostException> permitLost = new CompletableFuture<>();
        permit.onLost(permitLost::complete);

        List<LockInfo> released = admin().forceRelease(name);
        assertThat(released).extracting(LockInfo::kind).containsExactly(LockKind.MUTEX, LockKind.PERMIT);
        // At the next renewal, and never past the validity the last one granted.
        Await.result(lost, LEASE.plus(KitTime.SLACK));
        Await.result(permitLost, LEASE.plus(KitTime.SLACK));
        Instant expiry = kept.expiresAt();
        Await.condition("the kept lease to renew after the loss", LEASE.multipliedBy(3), () -> kept.expiresAt()
                .isAfter(expiry));
        assertThat(kept.isValid()).isTrue();
        assertThat(admin().status(name + "-kept")).map(LockInfo::fencingToken).hasValue(kept.fencingToken());
        broken.close();
        permit.close();
        kept.close();
    }
}
