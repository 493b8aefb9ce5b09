package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockException;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.servers.RedisServer;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Semaphores on one Redis server through the public API (and the SPI for the mixed renewal batch),
 * checked against what the server holds: the bound, tokens, expiry, the recorded count, clean-up
 * and renewal (see {@link RedisPermits}).
 */
@Timeout(KitTime.TEST_TIMEOUT_SECONDS)
class RedisSemaphoreTest {
    private static final RedisKeys KEYS = new RedisKeys(RedisKeys.DEFAULT_PREFIX);
    private static final LockOptions OPTIONS =
            LockOptions.builder().leaseTime(Duration.ofSeconds(10)).build();
    /** A lease of 1 s, renewed about every 330 ms: three lease times pass in three seconds. */
    private static final Duration SHORT_LEASE = Duration.ofSeconds(1);

    private static final LockOptions SHORT =
            OPTIONS.toBuilder().leaseTime(SHORT_LEASE).build();

    private static RedisServer server;
    private static RedisClient admin;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
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

    private static String name() {
        return "sem-" + UUID.randomUUID();
    }

    private static String holdersKey(String name) {
        return RedisPermits.keys(KEYS, name)[0];
    }

    private static String permitsKey(String name) {
        return RedisPermits.keys(KEYS, name)[2];
    }

    @Test
    void neverMoreThanFourHoldersAcrossEightThreadsOnThreeClients() throws Exception {
        String name = name();
        List<LockClient> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Set<Long> tokens = ConcurrentHashMap.newKeySet();
        List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                clients.add(Baton.connect(server.uri(), OPTIONS));
            }
            Duration run = KitTime.bulkWork(8 * 15);
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                LockClient client = clients.get(t % 3);
                done.add(CompletableFuture.runAsync(
                        () -> {
                            long last = 0;
                            for (int round = 0; round < 15; round++) {
                                try (Lease lease = client.semaphore(name, 4).acquire(run)) {
                                    int now = holding.incrementAndGet();
                                    most.accumulateAndGet(now, Math::max);
                                    long onServer = redis.zcard(holdersKey(name));
                                    if (now > 4 || onServer > 4) {
                                        violations.add(now + " held here, " + onServer + " on the server");
                                    }
                                    if (lease.fencingToken() <= last) {
                                        violations.add("token " + lease.fencingToken() + " after " + last);
                                    }
                                    last = lease.fencingToken();
                                    tokens.add(last);
                                    holding.decrementAndGet();
                                }
                            }
                        },
                        threads));
            }
            Await.result(CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)), run);
        } finally {
            threads.shutdownNow();
            clients.forEach(LockClient::close);
        }
        assertThat(violations).isEmpty();
        assertThat(most.get()).isBetween(1, 4);
        assertThat(tokens).as("every grant has a token of its own").hasSize(8 * 15);
        assertThat(redis.exists(holdersKey(name))).as("nothing left").isZero();
    }

    @Test
    void tokensStrictlyIncreaseAcrossClientsAndAfterTheCounterIsLost() {
        String name = name();
        try (LockClient a = Baton.connect(server.uri(), OPTIONS);
                LockClient b = Baton.connect(server.uri(), OPTIONS)) {
            long last = 0;
            for (int i = 0; i < 6; i++) {
                LockClient client = i % 2 == 0 ? a : b;
                try (Lease lease = client.semaphore(name, 2).acquire(KitTime.grant())) {
                    assertThat(lease.fencingToken()).isGreaterThan(last);
                    last = lease.fencingToken();
                }
                if (i == 3) {
                    redis.del(RedisPermits.keys(KEYS, name)[1]); // as after a restart without persistence
                }
            }
        }
    }

    @Test
    void aPermitThatIsNotRenewedComesBackAfterItsLease() {
        String name = name();
        LockOptions crashing = OPTIONS.toBuilder()
                .leaseTime(Duration.ofMillis(500))
                .autoRenew(false)
                .build();
        try (LockClient crashed = Baton.connect(server.uri(), crashing);
                LockClient other = Baton.connect(server.uri(), OPTIONS)) {
            Lease first = crashed.semaphore(name, 2).acquire(KitTime.grant());
            Lease second = crashed.semaphore(name, 2).acquire(KitTime.grant());
            assertThat(other.semaphore(name, 2).tryAcquire()).isEmpty();

            // The crashed client's 500 ms, then a poll and a grant.
            Duration freed = KitTime.bound(crashing.leaseTime().plus(KitTime.TAKE_OVER));
            try (Lease taken = other.semaphore(name, 2).acquire(freed);
                    Lease alsoTaken = other.semaphore(name, 2).acquire(freed)) {
                assertThat(taken.fencingToken()).isGreaterThan(Math.max(first.fencingToken(), second.fencingToken()));
                assertThat(alsoTaken.fencingToken()).isGreaterThan(taken.fencingToken());
                assertThat(first.isValid()).isFalse();
                assertThat(second.isValid()).isFalse();
                assertThat(redis.zcard(holdersKey(name)))
                        .as("both expired holders were dropped: only the two new ones")
                        .isEqualTo(2);
            }
        }
    }

    @Test
    void aDifferentCountForTheSameNameFailsClearlyUntilTheSemaphoreIsDeleted() {
        String name = name();
        try (LockClient a = Baton.connect(server.uri(), OPTIONS);
                LockClient b = Baton.connect(server.uri(), OPTIONS)) {
            Lease held = a.semaphore(name, 3).acquire(KitTime.grant());
            assertThatThrownBy(() -> b.semaphore(name, 4).tryAcquire())
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("'" + name + "'")
                    .hasMessageContaining("redis ")
                    .hasMessageContaining("asks for 4 permits")
                    .hasMessageContaining("created with 3")
                    .hasMessageContaining("same count")
                    .hasMessageContaining("delete the semaphore (that key)")
                    .hasMessageContaining(permitsKey(name));
            assertThatThrownBy(() -> b.semaphore(name, 4).acquire(Duration.ofSeconds(1)))
                    .isInstanceOf(LockConfigurationException.class);
            assertThat(redis.zcard(holdersKey(name)))
                    .as("the refused attempts left nothing")
                    .isEqualTo(1);

            held.close();
            redis.del(permitsKey(name));
            try (Lease recounted = b.semaphore(name, 4).acquire(KitTime.grant())) {
                assertThat(redis.get(permitsKey(name))).isEqualTo("4");
                assertThat(recounted.isValid()).isTrue();
            }
        }
    }

    @Test
    void aSemaphoreAndALockOfTheSameNameNeverMeet() {
        String name = name();
        try (LockClient client = Baton.connect(server.uri(), OPTIONS);
                LockClient other = Baton.connect(server.uri(), OPTIONS);
                Lease lock = client.lock(name).acquire(KitTime.grant());
                Lease permit = client.semaphore(name, 1).acquire(KitTime.grant())) {
            assertThat(lock.isValid()).isTrue();
            assertThat(permit.isValid()).isTrue();
            assertThat(other.lock(name).tryAcquire()).isEmpty();
            assertThat(other.semaphore(name, 1).tryAcquire()).isEmpty();
        }
    }

    @Test
    void timedOutAndInterruptedWaitersLeaveNothingBehind() throws Exception {
        String name = name();
        try (LockClient holder = Baton.connect(server.uri(), OPTIONS);
                LockClient waiter = Baton.connect(server.uri(), OPTIONS)) {
            Lease held = holder.semaphore(name, 1).acquire(KitTime.grant());
            assertThatThrownBy(() -> waiter.semaphore(name, 1).acquire(Duration.ofMillis(300)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("every permit");

            redis.set(permitsKey(name), "1"); // clears the refusal's mark, to see the next waiter's
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            Thread waiting = new Thread(() -> {
                try {
                    waiter.semaphore(name, 1).acquire().close();
                    outcome.complete(null);
                } catch (LockException e) {
                    outcome.complete(e);
                }
            });
            waiting.start();
            Await.condition("the waiter was refused", KitTime.grant(), () -> "1+".equals(redis.get(permitsKey(name))));
            waiting.interrupt();
            assertThat(Await.result(outcome, KitTime.grant())).hasCauseInstanceOf(InterruptedException.class);

            assertThat(redis.zcard(holdersKey(name))).as("only the holder").isEqualTo(1);
            held.close();
            assertThat(redis.exists(holdersKey(name))).isZero();
        }
    }

    @Test
    void aReleaseWakesAWaiterThatWouldNotPollOnItsOwn() throws Exception {
        String name = name();
        LockOptions noPoll = OPTIONS.toBuilder()
                .pollInitialDelay(Duration.ofSeconds(30))
                .pollMaxDelay(Duration.ofSeconds(30))
                .build();
        try (LockClient holder = Baton.connect(server.uri(), OPTIONS);
                LockClient waiter = Baton.connect(server.uri(), noPoll)) {
            Lease held = holder.semaphore(name, 1).acquire(KitTime.grant());
            long counted = zcardCalls();
            CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(
                    () -> waiter.semaphore(name, 1).acquire(Duration.ofSeconds(25)));
            // Only the acquire script counts holders (ZCARD): after a refusal the waiter subscribes
            // (and waits for the subscription), then tries again; a second count means it listens.
            Await.condition(
                    "the waiter subscribed and was refused again", KitTime.grant(), () -> zcardCalls() >= counted + 2);
            held.close();
            try (Lease taken = Await.result(waiting, KitTime.grant())) {
                assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
            }
            assertThat(redis.get(permitsKey(name)))
                    .as("the release cleared the mark")
                    .isEqualTo("1");
        }
    }

    /** ZCARD commands the server ran, scripts' included (INFO commandstats). */
    private static long zcardCalls() {
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_zcard:")) {
                return Long.parseLong(line.replaceAll("^cmdstat_zcard:calls=(\\d+),.*", "$1"));
            }
        }
        return 0;
    }

    private static double onlyScore(String name) {
        List<ScoredValue<String>> members = redis.zrangeWithScores(holdersKey(name), 0, -1);
        assertThat(members).hasSize(1);
        return members.get(0).getScore();
    }

    @Test
    void oneRenewalCallRenewsLocksAndPermitsTogether() {
        String name = name();
        Duration lease = Duration.ofSeconds(10);
        try (LockBackend backend = new RedisLockBackendProvider().create(server.uri(), OPTIONS)) {
            Grant lock = backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.MUTEX, lease)
                            .build())
                    .orElseThrow();
            Grant read = backend.tryAcquire(LockRequest.builder(name + "-r", owner(), LockKind.READ, lease)
                            .build())
                    .orElseThrow();
            Grant permit = backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.PERMIT, lease)
                            .permits(2)
                            .build())
                    .orElseThrow();
            Grant gone = backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.PERMIT, lease)
                            .permits(2)
                            .build())
                    .orElseThrow();
            assertThat(backend.release(gone)).isTrue();
            assertThat(backend.release(gone)).as("idempotent").isFalse();
            double before = redis.zscore(holdersKey(name), permit.ownerId());

            List<Optional<Grant>> renewed = backend.renewAll(List.of(lock, permit, read, gone), Duration.ofSeconds(20));

            assertThat(renewed.get(0)).isPresent();
            assertThat(renewed.get(1)).isPresent();
            assertThat(renewed.get(2)).isPresent();
            assertThat(renewed.get(3)).as("a released permit is not renewed").isEmpty();
            assertThat(redis.zscore(holdersKey(name), permit.ownerId())).isGreaterThan(before + 5_000);
            assertThat(redis.zscore(holdersKey(name), gone.ownerId()))
                    .as("never re-added")
                    .isNull();
            assertThat(redis.pttl(KEYS.keys(name)[0])).isGreaterThan(15_000);
            assertThat(backend.release(renewed.get(1).orElseThrow())).isTrue();
            assertThat(backend.release(lock)).isTrue();
            assertThat(backend.release(read)).isTrue();
        }
    }

    @Test
    void locksAndPermitsOfOneClientAreBothKeptPastThreeLeaseTimes() {
        String name = name();
        try (LockClient client = Baton.connect(server.uri(), SHORT);
                LockClient other = Baton.connect(server.uri(), OPTIONS);
                Lease lock = client.lock(name).acquire(KitTime.grant());
                Lease permit = client.semaphore(name, 1).acquire(KitTime.grant())) {
            double firstExpiry = onlyScore(name);
            // The permit's expiry on the server moved three lease times past its first one, so it
            // lived that long; the lock, renewed in the same calls, must have too.
            Await.condition(
                    "the permit renewed past three lease times",
                    SHORT_LEASE.multipliedBy(3).plus(KitTime.SLACK),
                    () -> onlyScore(name) > firstExpiry + 3 * SHORT_LEASE.toMillis());
            assertThat(lock.isValid()).isTrue();
            assertThat(permit.isValid()).isTrue();
            assertThat(other.lock(name).tryAcquire()).isEmpty();
            assertThat(other.semaphore(name, 1).tryAcquire()).isEmpty();
            assertThat(redis.get(KEYS.keys(name)[0]))
                    .as("the lock is still on the server")
                    .isNotNull();
        }
    }

    private static String owner() {
        return UUID.randomUUID().toString().replace("-", "");
    }
}
