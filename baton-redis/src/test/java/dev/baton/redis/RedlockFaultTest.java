package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.servers.RedisServer;
import dev.baton.tck.KitTime;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Redlock with masters killed: a majority keeps it granting, a minority makes it refuse cleanly. */
@Timeout(120)
class RedlockFaultTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(2))
            .operationTimeout(KitTime.operationTimeout())
            .pollInitialDelay(Duration.ofMillis(5))
            .pollMaxDelay(Duration.ofMillis(50))
            .build();

    private List<RedisServer> masters;
    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeEach
    void start() {
        masters = RedisServer.startMasters(5);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
        masters.forEach(RedisServer::close);
    }

    private LockClient client() {
        Redlock.Builder builder = Redlock.builder().options(OPTIONS);
        masters.forEach(m -> builder.node(m.uri()));
        LockClient client = builder.build();
        resources.add(client);
        return client;
    }

    /** Keys other than fencing counters on a live master: locks or readers left behind. */
    private List<String> leftovers(RedisServer master) {
        RedisClient raw = RedisClient.create(master.uri());
        try (StatefulRedisConnection<String, String> connection = raw.connect()) {
            return connection.sync().keys("baton:*").stream()
                    .filter(key -> !key.endsWith(":fence"))
                    .toList();
        } finally {
            raw.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @Test
    void keepsGrantingWithTwoOfFiveMastersKilledAndTokensKeepIncreasing() {
        LockClient first = client();
        LockClient second = client();
        String name = "redlock-fault-" + UUID.randomUUID();
        long before;
        try (Lease lease = first.lock(name).acquire(KitTime.grant())) {
            before = lease.fencingToken();
        }
        masters.get(0).kill();
        masters.get(3).kill();

        long previous = before;
        for (int i = 0; i < 20; i++) {
            LockClient client = i % 2 == 0 ? first : second;
            try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
                assertThat(lease.fencingToken()).isGreaterThan(previous);
                previous = lease.fencingToken();
                assertThat((i % 2 == 0 ? second : first).lock(name).tryAcquire())
                        .as("excluded with three masters left")
                        .isEmpty();
            }
        }
        // A held lease renews on the remaining majority past its lease time.
        try (Lease lease = first.lock(name).acquire(KitTime.grant())) {
            long start = System.nanoTime();
            while (System.nanoTime() - start
                    < OPTIONS.leaseTime().plusMillis(500).toNanos()) {
                assertThat(second.lock(name).tryAcquire()).isEmpty();
            }
            assertThat(lease.isValid()).isTrue();
        }
    }

    private static void setCounter(RedisServer master, String name, String value) {
        RedisClient raw = RedisClient.create(master.uri());
        try (StatefulRedisConnection<String, String> connection = raw.connect()) {
            String counter = new RedisKeys(RedisKeys.DEFAULT_PREFIX).keys(name)[1];
            assertThat(connection.sync().exists(counter))
                    .as("the counter exists")
                    .isEqualTo(1);
            connection.sync().set(counter, value);
        } finally {
            raw.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /**
     * Issue #25 asked whether Redlock tokens can go backwards across holders: a later majority whose
     * counters lag (a master missed grants, or restarted empty) must still hand out a larger token.
     * It does: the previous grant's token was raised on a majority, which every later majority
     * meets, and a master that lost its counter reseeds it from its clock, above any count so far.
     */
    @Test
    void tokensIncreaseAcrossHoldersWhoseMajoritiesHaveLaggingOrEmptyCounters() {
        LockClient first = client();
        LockClient second = client();
        String name = "redlock-tokens-" + UUID.randomUUID();
        long firstToken;
        try (Lease lease = first.lock(name).acquire(KitTime.grant())) {
            firstToken = lease.fencingToken();
        }
        // The next majority is {2, 3, 4}: two of its counters far behind, only master 2 saw the token.
        masters.get(0).kill();
        masters.get(1).kill();
        setCounter(masters.get(3), name, "1");
        setCounter(masters.get(4), name, "1");
        long secondToken;
        try (Lease lease = second.lock(name).acquire(KitTime.grant())) {
            secondToken = lease.fencingToken();
        }
        assertThat(secondToken).isGreaterThan(firstToken);

        // Masters 0 and 1 come back empty and master 2, the only one that saw both tokens, dies: the
        // majority {0, 1, 3, 4} has two reseeded counters and two that lag.
        masters.get(0).restart();
        masters.get(1).restart();
        masters.get(2).kill();
        setCounter(masters.get(3), name, "1");
        setCounter(masters.get(4), name, "1");
        try (Lease lease = first.lock(name).acquire(KitTime.grant())) {
            assertThat(lease.fencingToken()).isGreaterThan(secondToken);
        }
    }

    @Test
    void refusesCleanlyWithThreeOfFiveMastersKilled() {
        LockClient client = client();
        String name = "redlock-fault-" + UUID.randomUUID();
        client.lock(name).acquire(KitTime.grant()).close();
        masters.get(1).kill();
        masters.get(2).kill();
        masters.get(4).kill();

        KitTime.Stopwatch refused = KitTime.stopwatch();
        assertThatThrownBy(() -> client.lock(name).acquire(Duration.ofSeconds(30)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(name)
                .hasMessageContaining("redlock")
                .hasMessageContaining("only 2 of 5 masters answered");
        assertThat(refused.millis())
                .as("%s", refused)
                .isLessThan(refused.allows(OPTIONS.operationTimeout().plus(KitTime.SLACK))
                        .toMillis());
        assertThatThrownBy(() -> client.lock(name).tryAcquire()).isInstanceOf(LockUnavailableException.class);

        assertThat(leftovers(masters.get(0)))
                .as("nothing left on a live master")
                .isEmpty();
        assertThat(leftovers(masters.get(3)))
                .as("nothing left on a live master")
                .isEmpty();
    }
}
