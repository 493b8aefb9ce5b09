package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.servers.EtcdServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jetcd's newest line targets etcd 3.5 and 3.6; Debian 12 ships 3.4. Every request form this backend
 * and its benchmark peer send is exercised here against the installed server, so that a server (or
 * jetcd) that answers one of them differently fails here by name rather than somewhere in the kit.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JetcdOnThisServerTest {
    private static EtcdServer server;
    private static Client client;

    @BeforeAll
    static void start() {
        server = EtcdServer.start();
        client = Client.builder()
                .endpoints("http://" + server.endpoints())
                .namespace(bytes("/smoke"))
                .useVertx()
                .build();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    @Test
    void leaseTransactionSortedRangeAndWatchFromARevision() throws Exception {
        long lease =
                Await.result(client.getLeaseClient().grant(1), KitTime.grant()).getID();
        assertThat(Await.result(client.getLeaseClient().keepAliveOnce(lease), KitTime.grant())
                        .getTTL())
                .as("etcd raises a 1 s TTL to its minimum")
                .isGreaterThanOrEqualTo(1);
        ByteSequence prefix = bytes("/q/");
        GetOption queue = GetOption.builder()
                .isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.ASCEND)
                .build();
        long[] revisions = new long[3];
        for (int i = 0; i < 3; i++) {
            ByteSequence key = bytes("/q/" + (char) ('c' - i)); // created in the reverse of key order
            TxnResponse entered = Await.result(
                    client.getKVClient()
                            .txn()
                            .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                            .Then(
                                    Op.put(
                                            key,
                                            bytes("mutex"),
                                            PutOption.builder()
                                                    .withLeaseId(lease)
                                                    .build()),
                                    Op.get(prefix, queue))
                            .Else(Op.get(key, GetOption.DEFAULT), Op.get(prefix, queue))
                            .commit(),
                    KitTime.grant());
            assertThat(entered.isSucceeded()).isTrue();
            revisions[i] = entered.getHeader().getRevision();
            List<KeyValue> listed = entered.getGetResponses().get(0).getKvs();
            assertThat(listed).hasSize(i + 1);
            assertThat(listed.get(i).getCreateRevision()).isEqualTo(revisions[i]);
            assertThat(listed.get(i).getKey())
                    .as("keys come back without the namespace")
                    .isEqualTo(key);
            assertThat(listed.get(i).getLease()).isEqualTo(lease);
        }
        GetResponse upToSecond = Await.result(
                client.getKVClient()
                        .get(
                                prefix,
                                GetOption.builder()
                                        .isPrefix(true)
                                        .withSortField(GetOption.SortTarget.CREATE)
                                        .withSortOrder(GetOption.SortOrder.ASCEND)
                                        .withMaxCreateRevision(revisions[1])
                                        .build()),
                KitTime.grant());
        assertThat(upToSecond.getKvs())
                .extracting(KeyValue::getCreateRevision)
                .containsExactly(revisions[0], revisions[1]);

        // A delete before the watch starts is replayed from the revision given.
        ByteSequence first = bytes("/q/c");
        Await.result(client.getKVClient().delete(first), KitTime.grant());
        CompletableFuture<WatchEvent> deleted = new CompletableFuture<>();
        WatchOption fromListing = WatchOption.builder()
                .withRevision(upToSecond.getHeader().getRevision() + 1)
                .withNoPut(true)
                .build();
        try (Watch.Watcher watcher = client.getWatchClient()
                .watch(first, fromListing, response -> response.getEvents().forEach(deleted::complete))) {
            WatchEvent event = Await.result(deleted, KitTime.grant());
            assertThat(event.getEventType()).isEqualTo(WatchEvent.EventType.DELETE);
            assertThat(event.getKeyValue().getKey()).isEqualTo(first);
        }

        // Revoking the lease deletes its keys; keep-alives then fail as "lease not found".
        Await.result(client.getLeaseClient().revoke(lease), KitTime.grant());
        assertThat(Await.result(client.getKVClient().get(prefix, queue), KitTime.grant())
                        .getKvs())
                .isEmpty();
        Throwable failure = Await.result(
                client.getLeaseClient().keepAliveOnce(lease).handle((answer, thrown) -> thrown), KitTime.grant());
        assertThat(EtcdCalls.isLeaseNotFound(failure))
                .as(String.valueOf(failure))
                .isTrue();
    }

    /** The semaphore's forms: a value compare on a key that may be absent, and put-if-absent. */
    @Test
    void transactionComparingAValueThatMayBeAbsent() throws Exception {
        ByteSequence count = bytes("/s");
        ByteSequence own = bytes("/s/a");
        ByteSequence four = bytes("4");
        Callable<TxnResponse> enter = () -> Await.result(
                client.getKVClient()
                        .txn()
                        .If(
                                new Cmp(own, Cmp.Op.EQUAL, CmpTarget.createRevision(0)),
                                new Cmp(count, Cmp.Op.EQUAL, CmpTarget.value(four)))
                        .Then(
                                Op.put(own, bytes("permit x"), PutOption.DEFAULT),
                                Op.get(
                                        bytes("/s/"),
                                        GetOption.builder().isPrefix(true).build()))
                        .Else(Op.get(own, GetOption.DEFAULT), Op.get(count, GetOption.DEFAULT))
                        .commit(),
                KitTime.grant());
        TxnResponse absent = enter.call();
        assertThat(absent.isSucceeded())
                .as("a value compare on an absent key fails")
                .isFalse();
        assertThat(absent.getGetResponses().get(1).getKvs()).isEmpty();
        TxnResponse recorded = Await.result(
                client.getKVClient()
                        .txn()
                        .If(new Cmp(count, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                        .Then(Op.put(count, four, PutOption.DEFAULT))
                        .commit(),
                KitTime.grant());
        assertThat(recorded.isSucceeded()).isTrue();
        TxnResponse entered = enter.call();
        assertThat(entered.isSucceeded()).isTrue();
        assertThat(entered.getGetResponses().get(0).getKvs()).hasSize(1);
        Await.result(client.getKVClient().delete(own), KitTime.grant());
        Await.result(client.getKVClient().delete(count), KitTime.grant());
    }

    @Test
    void theLockServiceOfTheBenchmarkPeer() throws Exception {
        long lease =
                Await.result(client.getLeaseClient().grant(10), KitTime.grant()).getID();
        ByteSequence key = Await.result(client.getLockClient().lock(bytes("peer"), lease), KitTime.grant())
                .getKey();
        assertThat(key.toString(StandardCharsets.UTF_8)).contains("peer/");
        Await.result(client.getLockClient().unlock(key), KitTime.grant());
        Await.result(client.getLeaseClient().revoke(lease), KitTime.grant());
    }

    /** Baton reaches jetcd's gRPC channel to cut its reconnection back-off short ({@link EtcdReconnect}). */
    @Test
    void theClientsChannelIsReachableForReconnecting() {
        EtcdReconnect reconnect = new EtcdReconnect(client);
        assertThat(reconnect.channel()).isNotNull();
        reconnect.now();
        assertThat(reconnect.channel().isShutdown()).isFalse();
    }
}
