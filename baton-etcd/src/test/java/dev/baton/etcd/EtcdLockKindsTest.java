package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.servers.EtcdServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
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

/** The queue's rules across kinds: readers, writers and plain locks of one name, in arrival order. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdLockKindsTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(5))
            .operationTimeout(KitTime.operationTimeout())
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

    private LockClient client() {
        LockClient client = Baton.connect(server.uri() + "/kinds", OPTIONS);
        resources.add(client);
        return client;
    }

    private static String name() {
        return "kinds-" + UUID.randomUUID();
    }

    @Test
    void aQueuedWriterKeepsLaterReadersOut() throws Exception {
        String name = name();
        Lease reader = client().readWriteLock(name).readLock().acquire(KitTime.grant());
        LockClient writerClient = client();
        CompletableFuture<Lease> writer = CompletableFuture.supplyAsync(
                () -> writerClient.readWriteLock(name).writeLock().acquire(Duration.ofSeconds(20)));
        LockClient probe = client();
        // Until the writer's key is in the queue, a new reader still gets in beside the first.
        Await.condition("the writer to queue behind the reader", KitTime.grant(), () -> !probe.readWriteLock(name)
                .readLock()
                .tryAcquire()
                .map(lease -> {
                    lease.close();
                    return true;
                })
                .orElse(false));
        assertThat(writer).isNotDone();

        reader.close();
        try (Lease written = Await.result(writer, KitTime.grant())) {
            assertThat(written.fencingToken()).isGreaterThan(reader.fencingToken());
            assertThat(client().readWriteLock(name).readLock().tryAcquire()).isEmpty();
        }
        try (Lease again = client().readWriteLock(name).readLock().acquire(KitTime.grant())) {
            assertThat(again.isValid()).isTrue();
        }
    }

    @Test
    void plainLocksAndReadWriteLocksOfOneNameExcludeEachOther() {
        String name = name();
        try (Lease plain = client().lock(name).acquire(KitTime.grant())) {
            assertThat(client().readWriteLock(name).readLock().tryAcquire()).isEmpty();
            assertThat(client().readWriteLock(name).writeLock().tryAcquire()).isEmpty();
            assertThat(plain.isValid()).isTrue();
        }
        try (Lease read = client().readWriteLock(name).readLock().acquire(KitTime.grant())) {
            assertThat(client().lock(name).tryAcquire()).isEmpty();
            assertThat(read.isValid()).isTrue();
        }
        try (Lease plain = client().lock(name).acquire(KitTime.grant())) {
            assertThat(plain.isValid()).as("free again after the reader").isTrue();
        }
    }
}
