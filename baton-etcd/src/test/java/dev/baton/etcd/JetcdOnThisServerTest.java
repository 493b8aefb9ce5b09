package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.servers.EtcdServer;
import dev.baton.tck.Await;
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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
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
        long lease = client.getLeaseClient().grant(1).get(10, TimeUnit.SECONDS).getID();
        assertThat(client.getLeaseClient()
                        .keepAliveOnce(lease)
                        .get(10, TimeUnit.SECONDS)
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
            TxnResponse entered = client.getKVClient()
                    .txn()
                    .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                    .Then(
                            Op.put(
                                    key,
                                    bytes("mutex"),
                                    PutOption.builder().withLeaseId(lease).build()),
                            Op.get(prefix, queue))
                    .Else(Op.get(key, GetOption.DEFAULT), Op.get(prefix, queue))
                    .commit()
                    .get(10, TimeUnit.SECONDS);
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
        GetResponse upToSecond = client.getKVClient()
                .get(
                        prefix,
                        GetOption.builder()
                                .isPrefix(true)
                                .withSortField(GetOption.SortTarget.CREATE)
                                .withSortOrder(GetOption.SortOrder.ASCEND)
                                .withMaxCreateRevision(revisions[1])
                                .build())
                .get(10, TimeUnit.SECONDS);
        assertThat(upToSecond.getKvs())
                .extracting(KeyValue::getCreateRevision)
                .containsExactly(revisions[0], revisions[1]);

        // A delete before the watch starts is replayed from the revision given.
        ByteSequence first = bytes("/q/c");
        client.getKVClient().delete(first).get(10, TimeUnit.SECONDS);
        CompletableFuture<WatchEvent> deleted = new CompletableFuture<>();
        WatchOption fromListing = WatchOption.builder()
                .withRevision(upToSecond.getHeader().getRevision() + 1)
                .withNoPut(true)
                .build();
        try (Watch.Watcher watcher = client.getWatchClient()
                .watch(first, fromListing, response -> response.getEvents().forEach(deleted::complete))) {
            WatchEvent event = Await.result(deleted, Duration.ofSeconds(10));
            assertThat(event.getEventType()).isEqualTo(WatchEvent.EventType.DELETE);
            assertThat(event.getKeyValue().getKey()).isEqualTo(first);
        }

        // Revoking the lease deletes its keys; keep-alives then fail as "lease not found".
        client.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
        assertThat(client.getKVClient()
                        .get(prefix, queue)
                        .get(10, TimeUnit.SECONDS)
                        .getKvs())
                .isEmpty();
        Throwable failure = client.getLeaseClient()
                .keepAliveOnce(lease)
                .handle((answer, thrown) -> thrown)
                .get(10, TimeUnit.SECONDS);
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
        Supplier<TxnResponse> enter = () -> client.getKVClient()
                .txn()
                .If(
                        new Cmp(own, Cmp.Op.EQUAL, CmpTarget.createRevision(0)),
                        new Cmp(count, Cmp.Op.EQUAL, CmpTarget.value(four)))
                .Then(
                        Op.put(own, bytes("permit x"), PutOption.DEFAULT),
                        Op.get(bytes("/s/"), GetOption.builder().isPrefix(true).build()))
                .Else(Op.get(own, GetOption.DEFAULT), Op.get(count, GetOption.DEFAULT))
                .commit()
                .join();
        TxnResponse absent = enter.get();
        assertThat(absent.isSucceeded())
                .as("a value compare on an absent key fails")
                .isFalse();
        assertThat(absent.getGetResponses().get(1).getKvs()).isEmpty();
        TxnResponse recorded = client.getKVClient()
                .txn()
                .If(new Cmp(count, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(count, four, PutOption.DEFAULT))
                .commit()
                .get(10, TimeUnit.SECONDS);
        assertThat(recorded.isSucceeded()).isTrue();
        TxnResponse entered = enter.get();
        assertThat(entered.isSucceeded()).isTrue();
        assertThat(entered.getGetResponses().get(0).getKvs()).hasSize(1);
        client.getKVClient().delete(own).get(10, TimeUnit.SECONDS);
        client.getKVClient().delete(count).get(10, TimeUnit.SECONDS);
    }

    @Test
    void theLockServiceOfTheBenchmarkPeer() throws Exception {
        long lease = client.getLeaseClient().grant(10).get(10, TimeUnit.SECONDS).getID();
        ByteSequence key = client.getLockClient()
                .lock(bytes("peer"), lease)
                .get(10, TimeUnit.SECONDS)
                .getKey();
        assertThat(key.toString(StandardCharsets.UTF_8)).contains("peer/");
        client.getLockClient().unlock(key).get(10, TimeUnit.SECONDS);
        client.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
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
