package dev.baton.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.servers.RedisServer;
import dev.baton.testsupport.TestTime;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * What a Redisson holder knows: it learns of a loss only by asking {@code isHeldByCurrentThread()},
 * which the client does right after acquire (for a grant stamped late) and again at release. The
 * answer at acquire must not stand in for the one at release: the peers' table once counted every
 * Redisson holder whose lock was taken over as never told.
 */
class RedissonSubjectsTest {
    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisServer.startEmbedded();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Test
    void aHolderAskedAgainAfterATakeoverKnowsItLostTheLock() {
        for (boolean fenced : new boolean[] {false, true}) {
            String lock = "redisson-subject-" + fenced;
            try (ClientSubject subject = RedissonSubjects.create(redis.uri(), Duration.ofSeconds(30), fenced)) {
                ClientSubject.Hold hold =
                        subject.acquire(lock, TestTime.grant(), () -> {}).orElseThrow();
                assertThat(hold.knownLost()).as("held, asked at acquire").isFalse();
                deleteKey("redisson:"
                        + lock); // as when the lease ran out under a stopped holder and another client took it
                assertThat(hold.knownLost())
                        .as("asked again at release, fenced=%s", fenced)
                        .isTrue();
                hold.release();
            }
        }
    }

    private static void deleteKey(String key) {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.uri());
        RedissonClient other = Redisson.create(config);
        try {
            assertThat(other.getKeys().delete(key)).isEqualTo(1);
        } finally {
            other.shutdown();
        }
    }
}
