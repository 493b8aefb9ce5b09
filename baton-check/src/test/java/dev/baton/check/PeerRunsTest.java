package dev.baton.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.redis.RedisFencing;
import dev.baton.servers.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each peer library runs as a check subject on its Baton target's servers under one fault (a holder
 * paused past its lease), and writes to the fenced resource with the token kind it has: a growing
 * token where the library gives one, 0 where it gives none.
 */
class PeerRunsTest {
    private static final CheckSettings SETTINGS =
            new CheckSettings(2, Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMillis(20), 2, 5);

    private static RedisServer fence;
    private static RedisClient fenceClient;
    private static StatefulRedisConnection<String, String> fenceConnection;

    @BeforeAll
    static void startTheFence() {
        fence = RedisServer.startEmbedded();
        fenceClient = RedisClient.create(fence.uri());
        fenceConnection = fenceClient.connect();
    }

    @AfterAll
    static void stopTheFence() {
        if (fenceConnection != null) {
            fenceConnection.close();
            fenceClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (fence != null) {
            fence.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"redisson, false", "redisson-fenced, true", "curator, true", "shedlock-jdbc, false", "jetcd, true"})
    void runsUnderAPauseAndWritesWithItsToken(String peer, boolean fenced) throws InterruptedException {
        CheckRow row;
        try (CheckTarget target = CheckSuite.create(peer, SETTINGS)) {
            assertThat(target.peer()).isTrue();
            assertThat(target.naive()).isFalse();
            assertThat(target.strict()).isFalse();
            target.start(Set.of(Fault.PAUSE));
            row = new CheckRun(target, List.of(Fault.PAUSE), SETTINGS, fence.uri()).run(fraction -> {});
        }
        assertThat(row.peer()).isTrue();
        assertThat(row.faultsInjected()).as("%s", row).isPositive();
        assertThat(row.result().operations()).as("the clients worked: %s", row).isPositive();
        assertThat(row.verdict())
                .as("a peer's row is never a violation of Baton's: %s", row)
                .isIn(CheckRow.Verdict.SAFE, CheckRow.Verdict.SAFE_WITH_FENCING, CheckRow.Verdict.PEER_UNSAFE);

        List<Long> tokens = highestTokens(peer);
        assertThat(tokens).as("the run's fenced writes").isNotEmpty();
        if (fenced) {
            assertThat(tokens).as("%s writes with the library's token", peer).allMatch(token -> token > 0);
        } else {
            assertThat(tokens).as("%s has no token: it writes with 0", peer).containsOnly(0L);
        }
    }

    /** The highest token the fence accepted for each lock of this peer's run. */
    private static List<Long> highestTokens(String peer) {
        RedisCommands<String, String> redis = fenceConnection.sync();
        List<Long> tokens = new ArrayList<>();
        for (String key : redis.keys("fenced:" + peer + "-*")) {
            if (key.substring(("fenced:" + peer + "-").length()).matches("[0-9a-f]+-[0-9]+")) {
                tokens.add(Long.parseLong(redis.hget(key, RedisFencing.TOKEN_FIELD)));
            }
        }
        return tokens;
    }

    @Test
    void peersFollowTheirBackendAndStayOptIn() {
        assertThat(PeerTargets.withPeers(List.of("postgres", "redis", "naive-row")))
                .containsExactly("postgres", "shedlock-jdbc", "redis", "redisson", "redisson-fenced", "naive-row");
        assertThat(PeerTargets.withPeers(List.of("redisson", "redis")))
                .containsExactly("redisson", "redis", "redisson-fenced");
        assertThat(PeerTargets.isPeer("curator")).isTrue();
        assertThat(PeerTargets.isPeer("zookeeper")).isFalse();
    }

    @Test
    void aPeerRowReportsWhatBrokeWithoutCallingItAViolation() {
        CheckResult result =
                new CheckResult(100, 0, 5, 5, Duration.ofMillis(900), 0, 3, 0, 0, 2, List.of(), 0, 0, null);
        CheckRow peer = new CheckRow(
                "redisson",
                "Redisson RLock",
                false,
                true,
                false,
                List.of(Fault.PAUSE),
                4,
                Duration.ofSeconds(6),
                7,
                result,
                Double.NaN);
        CheckRow baton = new CheckRow(
                "redis", "Baton, Redis", false, false, List.of(Fault.PAUSE), 4, Duration.ofSeconds(6), 7, result);
        assertThat(peer.verdict()).isEqualTo(CheckRow.Verdict.PEER_UNSAFE);
        assertThat(peer.verdict().label()).isEqualTo("unsafe");
        assertThat(peer.violations())
                .containsExactly(
                        "3 stale writes accepted after a newer holder's", "2 losses never reported to the holder");
        assertThat(baton.verdict()).isEqualTo(CheckRow.Verdict.VIOLATION);
    }
}
