package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.LockUnavailableException;
import dev.baton.servers.EtcdServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import dev.baton.testsupport.TcpProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * Faults on one etcd member: a holder cut off past its lease's TTL, a lease revoked under its
 * holder, a thousand timed-out waits, and etcd's refusals worded for the user.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdFaultTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(2))
            .operationTimeout(KitTime.operationTimeout())
            .build();
    private static final String NAMESPACE = "/faults";
    private static EtcdServer server;
    private static Client etcd;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = EtcdServer.start();
        etcd = Client.builder()
                .endpoints("http://" + server.endpoints().split(",")[0])
                .build();
    }

    @AfterAll
    static void stopServer() {
        if (etcd != null) {
            etcd.close();
        }
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

    private LockClient client(String endpoints) {
        return track(Baton.connect("etcd://" + endpoints + NAMESPACE, OPTIONS));
    }

    private static String name() {
        return "fault-" + UUID.randomUUID();
    }

    /** The keys of a lock's queue, read directly. */
    private static List<KeyValue> queueKeys(String name) throws Exception {
        ByteSequence prefix =
                ByteSequence.from(NAMESPACE + "/baton/locks/" + EtcdKeys.encode(name) + "/", StandardCharsets.UTF_8);
        return Await.result(
                        etcd.getKVClient()
                                .get(prefix, GetOption.builder().isPrefix(true).build()),
                        KitTime.grant())
                .getKvs();
    }

    @Test
    void holderCutOffPastItsLeaseTtlIsToldAndAnotherClientGetsTheLock() throws Exception {
        String name = name();
        TcpProxy proxy = track(TcpProxy.start(server.address(0)));
        LockClient cutOff =
                client(proxy.address().getHostString() + ":" + proxy.address().getPort());
        LockClient other = client(server.endpoints());
        Lease held = cutOff.lock(name).acquire(KitTime.grant());
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        held.onLost(lost::complete);

        // Connections stay open but nothing gets through: the keep-alives stop reaching etcd.
        long cutAt = System.nanoTime();
        proxy.pause();
        assertThat(Await.result(lost, KitTime.bound(OPTIONS.leaseTime()))).hasMessageContaining(name);
        assertThat(held.isValid()).isFalse();
        assertThatThrownBy(held::checkValid).isInstanceOf(LockLostException.class);
        // etcd expires the lease on its own clock, at most a TTL (whole seconds) after the loss.
        Duration freed = KitTime.bound(OPTIONS.leaseTime().plus(KitTime.TAKE_OVER));
        try (Lease next = other.lock(name).acquire(freed)) {
            long freedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt);
            assertThat(freedAfter)
                    .as("etcd frees the lock when the holder's lease expires, not before")
                    .isGreaterThanOrEqualTo(1000);
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
        proxy.resume();
        held.close(); // never throws for a lost lease
    }

    /**
     * gRPC waits longer and longer between reconnection attempts while a server cannot be reached
     * (1 s, then 1.6 times more each time, up to 2 minutes): without Baton's help, a client cut off
     * for a while kept failing for seconds after the network was back.
     */
    @Test
    void aClientCutOffForLongTakesLocksAgainAsSoonAsTheNetworkIsBack() {
        String name = name();
        TcpProxy proxy = track(TcpProxy.start(server.address(0)));
        LockClient client =
                client(proxy.address().getHostString() + ":" + proxy.address().getPort());
        client.lock(name).acquire(KitTime.grant()).close();
        proxy.cut();
        // Fail for 15 s, each attempt within the operation timeout: gRPC's reconnection pauses grow.
        long cutFor = TimeUnit.SECONDS.toNanos(15);
        long start = System.nanoTime();
        int failed = 0;
        while (System.nanoTime() - start < cutFor) {
            assertThatThrownBy(() -> client.lock(name).acquire(Duration.ofSeconds(60)))
                    .isInstanceOf(LockUnavailableException.class);
            failed++;
        }
        assertThat(failed).isPositive();
        proxy.restore();
        // One operation timeout to succeed, although gRPC's next attempt is seconds away.
        try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void leaseRevokedUnderTheHolderIsReportedLost() throws Exception {
        String name = name();
        LockClient holder = client(server.endpoints());
        Lease held = holder.lock(name).acquire(KitTime.grant());
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        held.onLost(lost::complete);
        List<KeyValue> keys = queueKeys(name);
        assertThat(keys).hasSize(1);
        assertThat(keys.get(0).getCreateRevision()).isEqualTo(held.fencingToken());

        Await.result(etcd.getLeaseClient().revoke(keys.get(0).getLease()), KitTime.grant());
        // Told at the next renewal: a third of the lease time.
        assertThat(Await.result(lost, KitTime.bound(OPTIONS.leaseTime()))).hasMessageContaining(name);
        assertThat(held.isValid()).isFalse();
        try (Lease next = client(server.endpoints()).lock(name).acquire(KitTime.grant())) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
        held.close();
        // The holder's client takes a new lease for its next lock.
        try (Lease again = holder.lock(name).acquire(KitTime.grant())) {
            assertThat(again.isValid()).isTrue();
        }
    }

    @Test
    void noKeyIsLeftAfterAThousandTimedOutWaits() throws Exception {
        String name = name();
        LockClient holderClient = client(server.endpoints());
        DistributedLock waiter = client(server.endpoints()).lock(name);
        try (Lease held = holderClient.lock(name).acquire(KitTime.grant())) {
            for (int i = 0; i < 1000; i++) {
                assertThatThrownBy(() -> waiter.acquire(Duration.ofMillis(1))).isInstanceOf(LockTimeoutException.class);
            }
            assertThat(queueKeys(name)).as("only the holder's key").hasSize(1);
            assertThat(queueKeys(name).get(0).getVersion())
                    .as("the holder's key, written once")
                    .isEqualTo(1);
            assertThat(queueKeys(name).get(0).getCreateRevision()).isEqualTo(held.fencingToken());
        }
        assertThat(queueKeys(name)).isEmpty();
    }

    @Test
    void unreachableEndpointsAreNamedInTheMessage() {
        LockClient nowhere = client("127.0.0.1:1");
        assertThatThrownBy(() -> nowhere.lock(name()).acquire(Duration.ofSeconds(10)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("cannot reach etcd at 127.0.0.1:1")
                .hasMessageContaining("etcd (127.0.0.1:1/faults)");
    }
}
