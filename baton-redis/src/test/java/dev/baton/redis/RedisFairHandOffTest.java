package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.servers.RedisServer;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import dev.baton.tck.KitTime;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fair hand-off on one Redis server and on Redlock: the client that just released cannot take the
 * lock straight back while another client's waiter is queued, unless {@code fair=false}. Driven at
 * the backend, step by step as the core drives a waiter (attempt, subscribe, attempt again), so no
 * notification or poll can race the releasing client's re-acquire.
 */
@Timeout(60)
class RedisFairHandOffTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final LockOptions FAIR =
            LockOptions.builder().leaseTime(LEASE).build();
    private static final LockOptions BARGING =
            LockOptions.builder().leaseTime(LEASE).fair(false).build();

    private static RedisServer single;
    private static List<RedisServer> masters;

    @BeforeAll
    static void start() {
        single = RedisServer.startEmbedded();
        masters = RedisServer.startMasters(3);
    }

    @AfterAll
    static void stop() {
        if (single != null) {
            single.close();
        }
        if (masters != null) {
            masters.forEach(RedisServer::close);
        }
    }

    private static String redlockUri() {
        return "redlock://"
                + masters.stream().map(m -> m.host() + ":" + m.port()).collect(Collectors.joining(","));
    }

    private static LockRequest request(String name) {
        byte[] id = new byte[16];
        ThreadLocalRandom.current().nextBytes(id);
        return LockRequest.builder(name, HexFormat.of().formatHex(id), LockKind.MUTEX, LEASE)
                .build();
    }

    /**
     * Client A holds; client B's waiter tries, starts waiting and tries again; A releases and at once
     * asks again. Returns A's re-acquire, after checking what B then gets.
     */
    private static Optional<Grant> releaseAndReacquireWhileAnotherClientWaits(String uri, LockOptions options) {
        String name = "fair-" + UUID.randomUUID();
        // Through the core, which reads the URI's fair=false into the options.
        try (LockBackend a = Baton.backend(uri, options);
                LockBackend b = Baton.backend(uri, options)) {
            Grant held = a.tryAcquire(request(name)).orElseThrow();
            LockRequest waiter = request(name);
            assertThat(b.tryAcquire(waiter)).isEmpty();
            ReleaseNotifications.Subscription waiting = InLine.enter(b, waiter, () -> {});
            try {
                assertThat(b.tryAcquire(waiter)).isEmpty();

                assertThat(a.release(held)).isTrue();
                Optional<Grant> again = a.tryAcquire(request(name));

                Optional<Grant> waiterGrant = b.tryAcquire(waiter);
                if (again.isPresent()) {
                    assertThat(again.get().fencingToken()).isGreaterThan(held.fencingToken());
                    assertThat(waiterGrant).as("the re-acquire holds the lock").isEmpty();
                } else {
                    assertThat(waiterGrant)
                            .as("the waiter of the other client gets the lock")
                            .isPresent();
                    assertThat(waiterGrant.get().fencingToken()).isGreaterThan(held.fencingToken());
                }
                return again;
            } finally {
                waiting.close();
            }
        }
    }

    @Test
    void singleServerRefusesTheReleasingClientsReacquireWhileAnotherClientsWaiterIsQueued() {
        assertThat(releaseAndReacquireWhileAnotherClientWaits(single.uri(), FAIR))
                .isEmpty();
    }

    @Test
    void singleServerWithFairFalseLetsTheReleasingClientTakeTheLockBack() {
        assertThat(releaseAndReacquireWhileAnotherClientWaits(single.uri(), BARGING))
                .isPresent();
        assertThat(releaseAndReacquireWhileAnotherClientWaits(single.uri() + "?fair=false", FAIR))
                .isPresent();
    }

    @Test
    void redlockRefusesTheReleasingClientsReacquireWhileAnotherClientsWaiterIsQueued() {
        assertThat(releaseAndReacquireWhileAnotherClientWaits(redlockUri(), FAIR))
                .isEmpty();
    }

    @Test
    void redlockWithFairFalseLetsTheReleasingClientTakeTheLockBack() {
        assertThat(releaseAndReacquireWhileAnotherClientWaits(redlockUri() + "?fair=false", FAIR))
                .isPresent();
        assertThat(releaseAndReacquireWhileAnotherClientWaits(redlockUri(), BARGING))
                .isPresent();
    }

    @Test
    void redlockWaitersAreServedInTicketOrderOnEveryMaster() {
        String name = "order-" + UUID.randomUUID();
        RedisLockBackendProvider provider = new RedisLockBackendProvider();
        List<LockBackend> backends = new ArrayList<>();
        List<ReleaseNotifications.Subscription> subscriptions = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                backends.add(provider.create(redlockUri(), FAIR));
            }
            Grant held = backends.get(0).tryAcquire(request(name)).orElseThrow();
            List<LockRequest> waiters = new ArrayList<>();
            for (int i = 1; i < 4; i++) {
                LockRequest waiter = request(name);
                waiters.add(waiter);
                assertThat(backends.get(i).tryAcquire(waiter)).isEmpty();
                subscriptions.add(InLine.enter(backends.get(i), waiter, () -> {}));
                assertThat(backends.get(i).tryAcquire(waiter)).isEmpty();
            }
            backends.get(0).release(held);
            long token = held.fencingToken();
            // Later waiters ask first each time: only the longest-waiting one gets it.
            for (int turn = 0; turn < 3; turn++) {
                for (int later = 2; later > turn; later--) {
                    assertThat(backends.get(later + 1).tryAcquire(waiters.get(later)))
                            .as("waiter %d before waiter %d", later, turn)
                            .isEmpty();
                }
                Grant grant =
                        backends.get(turn + 1).tryAcquire(waiters.get(turn)).orElseThrow();
                assertThat(grant.fencingToken()).isGreaterThan(token);
                token = grant.fencingToken();
                backends.get(turn + 1).release(grant);
            }
        } finally {
            subscriptions.forEach(ReleaseNotifications.Subscription::close);
            backends.forEach(LockBackend::close);
        }
    }

    @Test
    void aDeadRedlockWaiterHoldsTheLineOnlyUntilItsEntryExpires() {
        String name = "dead-" + UUID.randomUUID();
        RedisKeys keys = new RedisKeys(RedisKeys.DEFAULT_PREFIX);
        String[] ticketKeys = keys.ticketKeys(name);
        String deadOwner = "0123456789abcdef0123456789abcdef";
        for (RedisServer master : masters) {
            RedisClient admin = RedisClient.create(master.uri());
            try (StatefulRedisConnection<String, String> connection = admin.connect()) {
                long serverNow = Long.parseLong(connection.sync().time().get(0)) * 1000;
                // The earliest ticket there is, from a waiter whose process died just now.
                connection.sync().zadd(ticketKeys[0], 1, deadOwner);
                connection.sync().zadd(ticketKeys[1], serverNow + 1500, deadOwner);
            } finally {
                admin.shutdown();
            }
        }
        LockOptions polling = LockOptions.builder()
                .pollInitialDelay(Duration.ofMillis(50))
                .pollMaxDelay(Duration.ofMillis(200))
                .build();
        try (LockClient client = Baton.connect(redlockUri(), polling)) {
            assertThat(client.lock(name).tryAcquire())
                    .as("the dead waiter is first")
                    .isEmpty();
            // The dead waiter's ticket runs out (1.5 s), then a poll and a grant.
            try (Lease lease = client.lock(name)
                    .acquire(KitTime.bound(Duration.ofMillis(1500).plus(KitTime.TAKE_OVER)))) {
                assertThat(lease.isValid()).isTrue();
            }
        }
    }

    @Test
    void aBadFairValueIsRefusedNamingTheOption() {
        assertThatThrownBy(() -> Baton.backend(single.uri() + "?fair=maybe", FAIR))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("fair='maybe'")
                .hasMessageContaining("fair=false");
        assertThatThrownBy(() -> Baton.backend(redlockUri() + "?fair=yes", FAIR))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("fair='yes'");
    }
}
