package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Holder;
import dev.baton.Lease;
import dev.baton.LockAdmin;
import dev.baton.LockClient;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.servers.RedisServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Operators on Redis: names with glob characters listed exactly, descriptions that survive a
 * hand-over and odd thread names, grants of older clients read without one, and Redlock's forced
 * release raising every master's counter.
 */
@Timeout(120)
class RedisOperatorsTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(5))
            .operationTimeout(KitTime.operationTimeout())
            .pollInitialDelay(Duration.ofMillis(5))
            .pollMaxDelay(Duration.ofMillis(50))
            .build();

    private static List<RedisServer> servers;
    private static RedisClient raw;
    private static RedisCommands<String, String> redis;
    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void start() {
        servers = RedisServer.startMasters(3);
        raw = RedisClient.create(servers.get(0).uri());
        redis = raw.connect().sync();
    }

    @AfterAll
    static void stop() {
        raw.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        servers.forEach(RedisServer::close);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    private LockClient client(String uri) {
        return track(Baton.connect(uri, OPTIONS));
    }

    private static String redlockUri() {
        return "redlock://"
                + String.join(
                        ",",
                        servers.stream().map(s -> s.host() + ":" + s.port()).toList());
    }

    @Test
    void globCharactersAndUnicodeInNamesAreListedExactly() {
        String base = "ops-" + UUID.randomUUID() + "/";
        List<String> names = List.of("a*b", "a?c", "a[x]", "a\\b", "a%7B", "a{t}", "ключ 🔒", "aa");
        LockClient client = client(servers.get(0).uri());
        for (String name : names) {
            track(client.lock(base + name).acquire(KitTime.grant()));
        }
        LockAdmin admin = track(Baton.admin(servers.get(0).uri(), OPTIONS));
        assertThat(admin.listingMethod()).isEqualTo("scans the keys baton:* in batches of 500 (SCAN)");

        assertThat(admin.locks(base))
                .extracting(LockInfo::name)
                .containsExactlyElementsOf(
                        names.stream().map(name -> base + name).sorted().toList());
        assertThat(admin.locks(base + "a*")).extracting(LockInfo::name).containsExactly(base + "a*b");
        assertThat(admin.locks(base + "a?")).extracting(LockInfo::name).containsExactly(base + "a?c");
        assertThat(admin.locks(base + "a[")).extracting(LockInfo::name).containsExactly(base + "a[x]");
        assertThat(admin.locks(base + "a\\")).extracting(LockInfo::name).containsExactly(base + "a\\b");
        assertThat(admin.locks(base + "a%")).extracting(LockInfo::name).containsExactly(base + "a%7B");
        assertThat(admin.locks(base + "a{")).extracting(LockInfo::name).containsExactly(base + "a{t}");
        assertThat(admin.locks(base + "ключ")).extracting(LockInfo::name).containsExactly(base + "ключ 🔒");
        // A prefix cut inside a surrogate pair has no UTF-8 form: it still lists what starts with it.
        String cut = (base + "ключ 🔒").substring(0, (base + "ключ 🔒").length() - 1);
        assertThat(admin.locks(cut)).extracting(LockInfo::name).containsExactly(base + "ключ 🔒");
    }

    @Test
    void aHandedOverLockCarriesTheWaitersDescription() throws Exception {
        String name = "ops-handover-" + UUID.randomUUID();
        LockClient holder = client(servers.get(0).uri() + "?clientName=first");
        LockClient waiting = client(servers.get(0).uri() + "?clientName=second");
        LockAdmin admin = track(Baton.admin(servers.get(0).uri(), OPTIONS));
        Lease held = holder.lock(name).acquire(KitTime.grant());
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "waiter thread+"));
        track(executor::shutdownNow);
        Future<Lease> next = executor.submit(() -> waiting.lock(name).acquire(Duration.ofSeconds(20)));
        Await.condition(
                "the waiter counted",
                KitTime.grant(),
                () -> admin.status(name).orElseThrow().waiters().orElse(0) >= 1);
        held.close();
        Lease handed = Await.result(next, KitTime.grant());

        Holder now = admin.status(name).orElseThrow().holders().get(0);
        assertThat(now.description()).startsWith("second on ").endsWith(" thread waiter thread+");
        assertThat(now.fencingToken()).isEqualTo(handed.fencingToken());
        // The value ends in the owner id (and a hand-over's wanted mark), whatever the description:
        // renewal and release still find it.
        assertThat(redis.get(new RedisKeys(RedisKeys.DEFAULT_PREFIX).keys(name)[0]))
                .isEqualTo(now.description() + " " + now.ownerId() + "+");
        Await.result(CompletableFuture.runAsync(handed::close, executor), KitTime.grant());
        assertThat(admin.status(name)).isEmpty();
    }

    @Test
    void grantsWrittenWithoutDescriptionsReadAsUndescribed() {
        String name = "ops-old-" + UUID.randomUUID();
        RedisKeys keys = new RedisKeys(RedisKeys.DEFAULT_PREFIX);
        String owner = "0123456789abcdef0123456789abcdef";
        redis.set(keys.keys(name)[1], "41");
        redis.set(keys.keys(name)[0], owner + "+", SetArgs.Builder.px(10_000));
        String readers = "ops-old-readers-" + UUID.randomUUID();
        redis.set(keys.keys(readers)[0], "S", SetArgs.Builder.px(10_000));
        redis.zadd(keys.keys(readers)[2], System.currentTimeMillis() + 10_000, owner);
        redis.set(keys.keys(readers)[1], "7");
        LockAdmin admin = track(Baton.admin(servers.get(0).uri(), OPTIONS));

        LockInfo lock = admin.status(name).orElseThrow();
        assertThat(lock.kind()).isEqualTo(LockKind.MUTEX);
        assertThat(lock.holders()).singleElement().satisfies(holder -> {
            assertThat(holder.ownerId()).isEqualTo(owner);
            assertThat(holder.description()).isEmpty();
            assertThat(holder.fencingToken()).isEqualTo(41);
        });
        LockInfo read = admin.status(readers).orElseThrow();
        assertThat(read.kind()).isEqualTo(LockKind.READ);
        assertThat(read.holders()).extracting(Holder::description).containsExactly("");
        assertThat(read.fencingToken()).isEqualTo(7);
        assertThat(admin.forceRelease(name)).flatExtracting(LockInfo::owners).containsExactly(owner);
        assertThat(admin.forceRelease(readers)).flatExtracting(LockInfo::owners).containsExactly(owner);
        assertThat(redis.exists(keys.keys(name)[0], keys.keys(readers)[0])).isZero();
    }

    @Test
    void redlocksForcedReleaseRaisesEveryMastersCounterAboveTheBrokenToken() throws Exception {
        String name = "ops-redlock-" + UUID.randomUUID();
        LockClient client = client(redlockUri() + "?clientName=red");
        LockAdmin admin = track(Baton.admin(redlockUri(), OPTIONS));
        Lease broken = client.lock(name).acquire(KitTime.grant());
        CompletableFuture<Exception> lost = new CompletableFuture<>();
        broken.onLost(lost::complete);
        // One master's counter falls behind (as after a restart without persistence).
        String fence = new RedisKeys(RedisKeys.DEFAULT_PREFIX).keys(name)[1];
        redis.set(fence, "1");

        assertThat(admin.listingMethod())
                .isEqualTo("scans the keys baton:* on each of the 3 masters in batches" + " of 500 (SCAN)");
        LockInfo info = admin.status(name).orElseThrow();
        assertThat(info.holders().get(0).description()).startsWith("red on ");
        assertThat(info.fencingToken()).isEqualTo(broken.fencingToken());
        List<LockInfo> released = admin.forceRelease(name);
        assertThat(released).singleElement().satisfies(lock -> assertThat(lock.fencingToken())
                .isEqualTo(broken.fencingToken()));
        for (RedisServer server : servers) {
            RedisClient master = RedisClient.create(server.uri());
            try {
                assertThat(Long.parseLong(master.connect().sync().get(fence)))
                        .as("counter on %s", server)
                        .isGreaterThanOrEqualTo(broken.fencingToken());
            } finally {
                master.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
        try (Lease next = client(redlockUri()).lock(name).tryAcquire().orElseThrow()) {
            assertThat(next.fencingToken()).isGreaterThan(broken.fencingToken());
        }
        // At the next renewal, and never past the validity the last one granted.
        assertThat(Await.result(lost, OPTIONS.leaseTime().plus(KitTime.SLACK))).hasMessageContaining(name);
        broken.close();
    }
}
