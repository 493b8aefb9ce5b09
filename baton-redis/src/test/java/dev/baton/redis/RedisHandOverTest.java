package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.servers.RedisServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import dev.baton.testsupport.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hand-over of exclusive locks to queued waiters: one release wakes exactly one waiter, which
 * owns the lock without asking the server again; a waiter that left or died is never a trap.
 */
@Timeout(60)
class RedisHandOverTest {
    /** Waiters never poll on their own within a test: only a notification can wake them. */
    private static final LockOptions NO_POLL = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .pollInitialDelay(Duration.ofSeconds(30))
            .pollMaxDelay(Duration.ofSeconds(30))
            .build();

    private static final RedisKeys KEYS = new RedisKeys(RedisKeys.DEFAULT_PREFIX);

    private static RedisServer server;
    private static RedisClient admin;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;

    @BeforeAll
    static void start() {
        server = RedisServer.startEmbedded();
        admin = RedisClient.create(server.uri());
        connection = admin.connect();
        redis = connection.sync();
    }

    @AfterAll
    static void stop() {
        if (connection != null) {
            connection.close();
            admin.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }

    private static String lockKey(String name) {
        return KEYS.keys(name)[0];
    }

    private static String queueKey(String name) {
        return KEYS.keys(name)[3];
    }

    private static long evalshaCalls() {
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                return Long.parseLong(line.replaceAll("^cmdstat_evalsha:calls=(\\d+),.*", "$1"));
            }
        }
        return 0;
    }

    /**
     * The waiters reach the server through a proxy that delays every packet by 100 ms, so that each is
     * queued before its client's hand-over channel is subscribed (see the test below): a release in
     * between hands the lock to a waiter that cannot hear it and would find it only at its next poll.
     * So the release comes once the three are queued and their three channels are subscribed: with
     * the queue alone awaited, the release would find a waiter that cannot hear it yet.
     */
    @Test
    void oneReleaseWakesExactlyOneWaiterWhichOwnsTheLockWithoutAnotherRoundTrip() throws Exception {
        String name = "handover-" + UUID.randomUUID();
        List<LockClient> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(3);
        TcpProxy slow = TcpProxy.start(new InetSocketAddress(server.host(), server.port()));
        try {
            slow.latency(Duration.ofMillis(100));
            LockClient holderClient = Baton.connect(server.uri(), NO_POLL);
            clients.add(holderClient);
            Lease holder = holderClient.lock(name).acquire(KitTime.grant());
            int channelsBefore =
                    redis.pubsubChannels(KEYS.prefix() + "handover:*").size();
            List<CompletableFuture<Lease>> waiting = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                LockClient waiter =
                        Baton.connect("redis://127.0.0.1:" + slow.address().getPort(), NO_POLL);
                clients.add(waiter);
                waiting.add(CompletableFuture.supplyAsync(
                        () -> waiter.lock(name).acquire(Duration.ofSeconds(20)), threads));
            }
            Await.condition(
                    "three waiters queued, their clients' hand-over channels subscribed",
                    KitTime.grant(),
                    () -> redis.zcard(queueKey(name)) == 3
                            && redis.pubsubChannels(KEYS.prefix() + "handover:*")
                                            .size()
                                    == channelsBefore + 3);

            long callsBefore = evalshaCalls();
            holder.close();
            Await.result(CompletableFuture.anyOf(waiting.toArray(CompletableFuture[]::new)), KitTime.grant());
            Lease first = waiting.stream()
                    .filter(CompletableFuture::isDone)
                    .findFirst()
                    .orElseThrow()
                    .join();

            assertThat(evalshaCalls() - callsBefore)
                    .as("the release is the only script run: the woken waiter already owns the lock")
                    .isEqualTo(1);
            assertThat(waiting.stream().filter(CompletableFuture::isDone)).hasSize(1);
            assertThat(redis.zcard(queueKey(name))).isEqualTo(2);
            assertThat(first.fencingToken()).isGreaterThan(holder.fencingToken());
            assertThat(first.isValid()).isTrue();

            // The others follow one by one, each with a higher token.
            long token = first.fencingToken();
            List<CompletableFuture<Lease>> pending = new ArrayList<>(waiting);
            pending.removeIf(CompletableFuture::isDone);
            first.close();
            for (int i = 0; i < 2; i++) {
                Await.result(CompletableFuture.anyOf(pending.toArray(CompletableFuture[]::new)), KitTime.grant());
                CompletableFuture<Lease> done = pending.stream()
                        .filter(CompletableFuture::isDone)
                        .findFirst()
                        .orElseThrow();
                pending.remove(done);
                Lease next = done.join();
                assertThat(next.fencingToken()).isGreaterThan(token);
                token = next.fencingToken();
                next.close();
            }
            assertThat(redis.exists(lockKey(name), queueKey(name))).isZero();
        } finally {
            threads.shutdownNow();
            clients.forEach(LockClient::close);
            slow.close();
        }
    }

    /**
     * A client's first wait opens its pub/sub connection and subscribes its hand-over channel; the
     * waiter must be in the lock's queue before that completes, or the releasing client takes the lock
     * straight back meanwhile and starves the others. The waiter's
     * connections go through a proxy that delays every packet by 100 ms, so its subscription needs
     * several round trips (connect, HELLO, SUBSCRIBE) and its queueing attempt one: the queue entry is
     * on the server well before the channel is subscribed; a client that awaited its subscription
     * before queueing would have it the other way round, and this test would fail.
     */
    @Test
    void aFreshClientsFirstWaitIsQueuedBeforeItsHandOverChannelIsSubscribed() throws Exception {
        String name = "first-wait-" + UUID.randomUUID();
        try (LockClient holder = Baton.connect(server.uri(), NO_POLL);
                TcpProxy proxy = TcpProxy.start(new InetSocketAddress(server.host(), server.port()));
                LockClient fresh = Baton.connect(
                        "redis://127.0.0.1:" + proxy.address().getPort(),
                        LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())) {
            Lease held = holder.lock(name).acquire(KitTime.grant());
            fresh.lock(name + "-warm").acquire(KitTime.grant()).close(); // its command connection
            List<String> before = redis.pubsubChannels(KEYS.prefix() + "handover:*");
            proxy.latency(Duration.ofMillis(100));
            ExecutorService thread = Executors.newSingleThreadExecutor();
            try {
                CompletableFuture<Long> granted = CompletableFuture.supplyAsync(
                        () -> {
                            try (Lease lease = fresh.lock(name).acquire(Duration.ofSeconds(30))) {
                                return lease.fencingToken();
                            }
                        },
                        thread);
                String first = null;
                while (first == null && !granted.isDone()) {
                    boolean queued = redis.zcard(queueKey(name)) > 0;
                    boolean subscribed =
                            redis.pubsubChannels(KEYS.prefix() + "handover:*").size() > before.size();
                    if (queued || subscribed) {
                        first = queued && !subscribed
                                ? "the queue entry"
                                : subscribed && !queued ? "the channel" : "both";
                    }
                }
                held.close();
                assertThat(Await.result(granted, KitTime.grant())).isGreaterThan(held.fencingToken());
                assertThat(first).as("what the server showed first").isEqualTo("the queue entry");
            } finally {
                proxy.latency(Duration.ZERO);
                thread.shutdownNow();
            }
        }
    }

    @Test
    void aWaiterThatGaveUpLeavesTheQueueAndIsNeverHandedTheLock() throws Exception {
        String name = "gave-up-" + UUID.randomUUID();
        try (LockClient holderClient = Baton.connect(server.uri(), NO_POLL);
                LockClient quitter = Baton.connect(server.uri(), NO_POLL);
                LockClient later = Baton.connect(server.uri(), NO_POLL)) {
            Lease holder = holderClient.lock(name).acquire(KitTime.grant());
            assertThatThrownBy(() -> quitter.lock(name).acquire(Duration.ofMillis(300)))
                    .isInstanceOf(LockTimeoutException.class);
            Await.condition("the quitter left the queue", KitTime.grant(), () -> redis.zcard(queueKey(name)) == 0);

            holder.close();
            assertThat(redis.exists(lockKey(name)))
                    .as("released, not handed over")
                    .isZero();
            try (Lease lease = later.lock(name).tryAcquire().orElseThrow()) {
                assertThat(lease.fencingToken()).isGreaterThan(holder.fencingToken());
            }
        }
    }

    @Test
    void aLockHandedToAWaiterThatDiedFreesItselfAfterThatWaitersLease() throws Exception {
        String name = "dead-waiter-" + UUID.randomUUID();
        // An expired lease publishes nothing: the next waiter finds the lock free by its bounded poll.
        LockOptions polling = LockOptions.builder()
                .pollInitialDelay(Duration.ofMillis(50))
                .pollMaxDelay(Duration.ofMillis(200))
                .build();
        try (LockClient holderClient = Baton.connect(server.uri(), NO_POLL);
                LockClient next = Baton.connect(server.uri(), polling)) {
            Lease holder = holderClient.lock(name).acquire(KitTime.grant());
            // A waiter of a process that died: queued with a 700 ms lease on a channel nobody reads.
            String deadOwner = "0123456789abcdef0123456789abcdef";
            Duration deadLease = Duration.ofMillis(700);
            redis.zadd(
                    queueKey(name),
                    System.currentTimeMillis() + 60_000,
                    deadOwner + " " + deadLease.toMillis() + " " + RedisKeys.DEFAULT_PREFIX + "handover:gone");
            // ... whose attempt marked the lock as wanted, as every failed attempt does.
            redis.set(lockKey(name), redis.get(lockKey(name)) + "+", io.lettuce.core.SetArgs.Builder.keepttl());

            holder.close();
            assertThat(redis.get(lockKey(name)))
                    .as("handed to the queued waiter")
                    .startsWith(deadOwner);
            // The dead waiter's lease, then the next waiter's poll and its grant.
            Duration freed = deadLease.plus(KitTime.TAKE_OVER);
            KitTime.Stopwatch waited = KitTime.stopwatch();
            try (Lease lease = next.lock(name).acquire(KitTime.bound(freed))) {
                assertThat(waited.millis())
                        .as("freed after the dead waiter's lease (%s)", waited)
                        .isLessThan(waited.allows(freed.plus(KitTime.SLACK)).toMillis());
                assertThat(lease.fencingToken()).isGreaterThan(holder.fencingToken());
            }
        }
    }
}
